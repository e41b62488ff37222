package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.cli.Commands;

/**
 * Option values and files a new user gets wrong, found by using the command line as one: a mistyped option value is a
 * usage error (exit 2) that names the option and what it takes, a file that is not what the command takes is named
 * with why, before anything is started or sent.
 */
class MistypedOptionValuesTest {
    /** Every command here names its engine (port 1: nothing listens) or none, and is refused before it looks for one. */
    @TempDir
    Path dir;

    private record Result(int exit, String err) {
    }

    private static Result mpflc(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Commands.run(List.of(args), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, err.toString(StandardCharsets.UTF_8));
    }

    /**
     * {@code --engine localhost:8080} (no scheme) said {@code invalid URI scheme localhost}, {@code --engine
     * 127.0.0.1:8080} {@code Illegal character in scheme name at index 0: 127.0.0.1:8080/api/runs?limit=21}, a port
     * beyond 65535 {@code port out of range:99999}: exit 1, without naming the option or the URL's form. {@code mpflc host},
     * {@code relay} and {@code slurm} parse {@code --engine} apart from the client commands and are held to the same check.
     */
    @Test
    void anEngineUrlThatIsNoneIsAUsageErrorNamingTheOption() throws Exception {
        Path doc = Files.writeString(dir.resolve("first.mpfl.xml"), "<workflow xmlns=\"urn:mpfl:1.0\" name=\"first\">"
                + "<process name=\"p\" ranks=\"1\"/></workflow>");
        List<List<String>> commands = List.of(
                List.of("run", doc.toString(), "--engine", "localhost:8080"),
                List.of("runs", "--engine", "127.0.0.1:8080"),
                List.of("status", "r1", "--engine", "http://127.0.0.1:99999"),
                List.of("logs", "r1", "--engine", "http://a b"),
                List.of("hosts", "--engine", "ftp://127.0.0.1:8080"),
                List.of("cancel", "r1", "--engine", "http://[::1"),
                List.of("host-token", "--engine", "127.0.0.1", "-o", dir.resolve("h.credential").toString()),
                // service-runtime's own parsers of --engine: they said the credential was missing, or took the URL on
                List.of("host", "--engine", "localhost:8080"),
                List.of("relay", "--engine", "localhost:8080", "--advertise", "127.0.0.1"),
                List.of("slurm", "--engine", "engine:8080", "--credentials", dir.toString()));
        for (List<String> command : commands) {
            Result r = mpflc(command.toArray(String[]::new));
            String url = command.get(command.indexOf("--engine") + 1);
            assertEquals(2, r.exit(), command + ": " + r.err());
            assertTrue(r.err().startsWith("mpflc " + command.get(0) + ": --engine must be the engine's URL, http://HOST:PORT or"
                    + " https://HOST:PORT (e.g. http://127.0.0.1:8080), got '" + url + "'"), command + ": " + r.err());
        }
    }

    /** A proxy's path after the port, https and a trailing slash are engine URLs: they pass the check as they are. */
    @Test
    void theUrlsAnEngineHasPassTheCheck() throws Exception {
        for (String url : List.of("http://127.0.0.1:8080", "https://engine.example.org/mpfl/", "HTTP://[::1]:8080", "http://host")) {
            assertEquals(url, org.mpfl.protocol.EngineReach.checkedUrl(url, "--engine"));
        }
    }

    /** {@code --timeout -1} was taken as no bound: the run went on for as long as it liked. */
    @Test
    void aNegativeTimeoutIsAUsageError() {
        Result r = mpflc("run", dir.resolve("x.mpfl.xml").toString(), "--local", "--timeout", "-1");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().startsWith("mpflc run: --timeout must be at least 0 (seconds; 0: no bound)"), r.err());
    }

    /**
     * {@code run --local --hosts 100000} printed that it was starting 100000 service host processes and started them,
     * JVM after JVM, until it was killed; {@code up} the same. Refused now before any starts.
     */
    @Test
    void moreLocalHostsThanTheMachineShouldStartAreRefusedBeforeAnyStarts() throws Exception {
        Path doc = Files.writeString(dir.resolve("first.mpfl.xml"), "<workflow xmlns=\"urn:mpfl:1.0\" name=\"first\">"
                + "<process name=\"p\" ranks=\"1\"/></workflow>");
        String refusal = ": mpflc starts at most 64 service host processes on this machine (-Dmpfl.local.maxHosts), each a JVM;"
                + " more hosts belong on the machines whose cores they use (mpflc host there, docs/deployment.md)";
        Result run = mpflc("run", doc.toString(), "--local", "--hosts", "100000");
        assertEquals(2, run.exit(), run.err());
        assertEquals("mpflc run: --hosts 100000" + refusal + "\n", run.err());
        Result up = mpflc("up", "--hosts", "65", "--port", "0", "--data", dir.resolve("data").toString());
        assertEquals(2, up.exit(), up.err());
        assertEquals("mpflc up: --hosts 65" + refusal + "\n", up.err());
        assertTrue(Files.notExists(dir.resolve("data")), "nothing was started");
    }

    /**
     * {@code run --local --python ../py} (and {@code ./venv/bin/python}) was passed on as given: the kernel worker,
     * started in its unpacked libraries' directory, failed every rank with {@code …/mpfl-kernels-…/../py: No such file
     * or directory}, and {@code run --local} did not look at the interpreter before starting. A path that is no
     * executable file is now a usage error naming the flag, from {@code run --local}, {@code up} and {@code host} alike,
     * before anything starts.
     */
    @Test
    void aPythonPathThatIsNoExecutableFileIsRefusedBeforeAnythingStarts() throws Exception {
        Path doc = Files.writeString(dir.resolve("first.mpfl.xml"), "<workflow xmlns=\"urn:mpfl:1.0\" name=\"first\">"
                + "<process name=\"p\" ranks=\"1\"/></workflow>");
        String missing = "./no-such-venv/bin/python";
        Result run = mpflc("run", doc.toString(), "--local", "--python", missing);
        assertEquals(2, run.exit(), run.err());
        assertEquals("mpflc run: --python " + missing + ": no such file\n", run.err());
        Result hosts = mpflc("run", doc.toString(), "--local", "--hosts", "1", "--python", doc.toString());
        assertEquals(2, hosts.exit(), hosts.err());
        assertEquals("mpflc run: --python " + doc + ": not an executable file\n", hosts.err());
        Result up = mpflc("up", "--hosts", "1", "--port", "0", "--data", dir.resolve("data").toString(), "--python", missing);
        assertEquals(2, up.exit(), up.err());
        assertTrue(up.err().startsWith("mpflc up: --python " + missing + ": no such file\n"), up.err());
        assertTrue(Files.notExists(dir.resolve("data")), "nothing was started");
        Result host = mpflc("host", "--engine", "http://127.0.0.1:1", "--python", missing);
        assertEquals(2, host.exit(), host.err());
        assertTrue(host.err().startsWith("mpflc host: --python " + missing + ": no such file\n"), host.err());
    }

    /**
     * Any {@code .json} was taken for a deployment plan: a trace ({@code mpflc trace -o}) in the directory given to
     * {@code run} got the engine's {@code plan 'workflow' has no processes}, a truncated plan the JSON parser's words
     * about a source {@code REDACTED}, with neither file nor line.
     */
    @Test
    void aJsonFileThatIsNoPlanIsNamedWithWhy() throws Exception {
        Path trace = Files.writeString(Files.createDirectories(dir.resolve("traced")).resolve("trace.json"), "{\"traceEvents\": []}");
        for (String target : List.of(trace.toString(), trace.getParent().toString())) {
            Result r = mpflc("run", target, "--local");
            assertEquals(1, r.exit(), r.err());
            assertEquals("mpflc run: " + trace + ": not a deployment plan (it has no 'processes'); a deployment plan is what"
                    + " mpflc compile writes (plan.json)\n", r.err());
        }
        Path truncated = Files.writeString(dir.resolve("plan.json"), "{\"workflow\": \"ring\",\n \"processes\": [");
        Result r = mpflc("deploy", truncated.toString(), "--engine", "http://127.0.0.1:1");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().startsWith("mpflc deploy: " + truncated + ":2:16: malformed JSON (Unexpected end-of-input"), r.err());
    }

    /**
     * The RUN argument went into the request's path as it was: {@code mpflc status ""} asked for the list of runs and
     * printed {@code run     workflow   0%  0.0 s}, {@code status ../registry/hosts} fetched the hosts, {@code cancel ""}
     * said {@code HTTP 405 without a message}. Refused now before anything is sent (no engine listens at port 1).
     */
    @Test
    void aRunArgumentThatCannotBeARunIdIsAUsageError() {
        for (List<String> command : List.of(List.of("status", ""), List.of("status", "../registry/hosts", "--follow"),
                List.of("cancel", ""), List.of("logs", "a/b"), List.of("trace", "x?y"), List.of("resume", "../x"))) {
            List<String> line = new java.util.ArrayList<>(command);
            line.addAll(List.of("--engine", "http://127.0.0.1:1"));
            Result r = mpflc(line.toArray(String[]::new));
            assertEquals(2, r.exit(), line + ": " + r.err());
            assertEquals("mpflc " + command.get(0) + ": RUN must be a run's id (letters, digits, '-' and '_', as mpflc runs"
                    + " lists them), got '" + command.get(1) + "'\n", r.err());
        }
    }
}
