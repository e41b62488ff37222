package org.mpfl.engine.capacity.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.mpfl.engine.capacity.CapacityException;
import org.mpfl.engine.capacity.HostJob;
import org.mpfl.engine.capacity.JobStatus;
import org.mpfl.engine.capacity.JobsAtOnce;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.HostCredential;

/**
 * The Slurm provider through slurmrestd, for an engine that runs outside the cluster's login nodes:
 * REST (OpenAPI plugin {@value #API}, Slurm 22.05) authenticated with a JWT ({@code scontrol token})
 * read from a file of mode 0600 before every request, so a renewed token is taken up without a
 * restart, and refused before it is sent once its {@code exp} has passed. Plain {@code http} is warned of
 * when the engine starts ({@link #plainHttpWarning}). The job is the same as {@link SlurmCommandLine}'s: its script (no secret in it), the host's
 * credential in the job's environment. A refused token is a {@link CapacityException} saying so and
 * how to make a new one.
 */
public final class SlurmRest extends SlurmScheduler {
    /** The slurmrestd API version spoken (Slurm 22.05's newest). */
    static final String API = "v0.0.38";
    private static final Duration WAIT = SlurmTools.WAIT;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SlurmRest.class);

    private final URI base;
    private final Path jwtFile;
    private final SlurmSettings settings;
    /** An answer of slurmrestd. */
    private record HttpResponse(int statusCode, String body) {
    }

    public SlurmRest(URI base, Path jwtFile, SlurmSettings settings) {
        String b = base.toString();
        this.base = URI.create(b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
        this.jwtFile = jwtFile;
        this.settings = settings;
    }

    @Override
    SlurmSettings settings() {
        return settings;
    }

    @Override
    public void check() throws CapacityException {
        String plain = plainHttpWarning(base);
        if (plain != null) {
            LOG.warn("{}", plain);
        }
        // said as such, not as a refusal of slurmrestd's (below)
        checkExpiry(token());
        JsonNode ping;
        try {
            ping = call("GET", "/slurm/" + API + "/ping", null);
        } catch (CapacityException e) {
            if (e.getMessage().contains("refused the JWT") || e.getMessage().contains("does not answer")) {
                throw e;
            }
            // slurmrestd 22.05 answers a JWT slurmctld refuses with "HTTP 500: slurmctld config is unable to load"
            throw new CapacityException("slurmrestd at " + base + " refused the JWT in " + jwtFile + " (" + e.getMessage()
                    + "): it is wrong or expired, or slurmctld does not accept JWTs (AuthAltTypes=auth/jwt); make a new one"
                    + " where Slurm runs with 'scontrol token lifespan=SECONDS' and write its value to " + jwtFile, e);
        }
        for (JsonNode p : ping.path("pings")) {
            if (!"UP".equalsIgnoreCase(p.path("ping").asText("UP"))) {
                throw new CapacityException("slurmrestd at " + base + ": slurmctld " + p.path("hostname").asText() + " is "
                        + p.path("ping").asText());
            }
        }
    }

    /**
     * Refuses a partition no node of slurmrestd's {@code /nodes} belongs to, a job size larger than every node of
     * the partition has, and a {@code --walltime} longer than the partition's {@code max_time_limit}, as the command
     * line does with {@code sinfo} and {@code scontrol}: such jobs would pend for ever.
     */
    @Override
    public void checkJobSize(int cpus) throws CapacityException {
        Set<String> partitions = new TreeSet<>();
        Map<String, Integer> nodes = nodes(partitions);
        int largest = nodes.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        if (partitions.isEmpty()) {
            return; // an answer without partitions (another API version): nothing to tell
        }
        if (!partitions.contains(settings.partition())) {
            throw new CapacityException("Slurm has no partition '" + settings.partition() + "' (slurmrestd's nodes are in: "
                    + String.join(", ", partitions) + ")");
        }
        if (largest > 0 && cpus > largest) {
            throw new CapacityException("no node of partition '" + settings.partition() + "' has " + cpus + " CPUs (slurmrestd: "
                    + largest + " per node at most): give --cpus-per-node " + largest + " or less, or another --partition");
        }
        Long maxMinutes = limit(partition().path("max_time_limit"));
        checkWalltime(settings, maxMinutes == null ? null : String.valueOf(maxMinutes), "slurmrestd, in minutes");
    }

    /** The partition's nodes as slurmrestd's {@code /nodes} lists them, and its {@code maximum_cpus_per_node}. */
    @Override
    public JobsAtOnce jobsAtOnce(int cpus) throws CapacityException {
        Long max = limit(partition().path("maximum_cpus_per_node"));
        return jobsAtOnce(settings.partition(), nodes(new TreeSet<>()), max == null ? null : max.intValue(), false, cpus,
                "slurmrestd");
    }

    /** CPUs per node of the partition's nodes, by name; {@code partitions} gets every partition a node is in. */
    private Map<String, Integer> nodes(Set<String> partitions) throws CapacityException {
        Map<String, Integer> out = new java.util.HashMap<>();
        for (JsonNode node : call("GET", "/slurm/" + API + "/nodes", null).path("nodes")) {
            for (JsonNode p : node.path("partitions")) {
                partitions.add(p.asText());
                if (p.asText().equals(settings.partition()) && node.path("cpus").asInt(0) > 0) {
                    out.put(node.path("name").asText(), node.path("cpus").asInt());
                }
            }
        }
        return out;
    }

    /** slurmrestd's {@code /partition/P} entry, or an empty object when it lists none. */
    private JsonNode partition() throws CapacityException {
        return call("GET", "/slurm/" + API + "/partition/" + settings.partition(), null).path("partitions").path(0);
    }

    /** A limit of v0.0.38 (a number; absent, null, negative or Slurm's INFINITE/NO_VAL, 2^32-1 and -2: none). */
    private static Long limit(JsonNode v) {
        return v.canConvertToLong() && v.asLong() > 0 && v.asLong() < 0xFFFFFFFEL ? v.asLong() : null;
    }

    @Override
    public String submit(HostJob job) throws CapacityException {
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("script", SlurmCommandLine.script(settings, job));
        ObjectNode j = body.putObject("job");
        j.put("name", job.name());
        j.put("partition", settings.partition());
        if (settings.account() != null) {
            j.put("account", settings.account());
        }
        if (settings.walltime() != null) {
            j.put("time_limit", minutes(settings.walltime()));
        }
        j.put("nodes", 1);
        j.put("tasks", 1);
        j.put("cpus_per_task", job.cpus());
        j.put("current_working_directory", settings.logDir().toString());
        j.put("standard_output", settings.logDir().resolve(job.name() + ".log").toString());
        ObjectNode env = j.putObject("environment");
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        settings.toolEnv().forEach(env::put);
        env.put(HostCredential.ENV, job.credential());
        try {
            // where its output goes (slurmrestd cannot make it; on a shared file system this is the nodes' too)
            java.nio.file.Files.createDirectories(settings.logDir());
        } catch (IOException e) {
            throw new CapacityException("cannot make the job log directory " + settings.logDir() + ": " + e.getMessage(), e);
        }
        JsonNode answer;
        try {
            answer = call("POST", "/slurm/" + API + "/job/submit", body);
        } catch (CapacityException e) {
            // sent, and no answer within WAIT: slurmrestd may have passed the job on to slurmctld all the same
            if (e.getCause() instanceof java.net.SocketTimeoutException t && String.valueOf(t.getMessage()).contains("Read timed out")) {
                throw CapacityException.outcomeUnknown(e.getMessage(), e);
            }
            throw e;
        }
        if (!answer.path("job_id").canConvertToLong()) {
            throw new CapacityException("slurmrestd at " + base + " answered no job id: " + answer);
        }
        return answer.get("job_id").asText();
    }

    @Override
    public void cancel(String jobId) throws CapacityException {
        call("DELETE", "/slurm/" + API + "/job/" + jobId, null);
    }

    @Override
    List<JobStatus> jobs(String name) throws CapacityException {
        List<JobStatus> out = new ArrayList<>();
        for (JsonNode j : call("GET", "/slurm/" + API + "/jobs", null).path("jobs")) {
            if (name != null && !name.equals(j.path("name").asText())) {
                continue;
            }
            String state = j.path("job_state").asText("");
            out.add(new JobStatus(j.path("job_id").asText(), phase(state), state, j.path("state_reason").asText(""),
                    j.path("nodes").asText("")));
        }
        return out;
    }

    /**
     * What to warn of when slurmrestd is reached over plain {@code http}: the JWT, which lets its holder act as the
     * user at Slurm until it expires, crosses the network readable by anyone on the path; {@code null} for https.
     */
    static String plainHttpWarning(URI base) {
        if (!"http".equalsIgnoreCase(base.getScheme())) {
            return null;
        }
        return "slurmrestd at " + base + " is reached over plain http: the JWT in every request (which lets whoever holds it"
                + " act as its user at Slurm until it expires) can be read on the way; put TLS in front of slurmrestd (a"
                + " reverse proxy) and give an https URL" + (isLoopback(base) ? " (it is this machine here: only its own users can"
                + " read the traffic)" : "");
    }

    private static boolean isLoopback(URI base) {
        String h = base.getHost();
        return h != null && (h.equals("localhost") || h.startsWith("127.") || h.equals("[::1]") || h.equals("::1"));
    }

    /** Refuses a token whose {@code exp} claim has passed, before it is sent: checked on every request, not once at start. */
    private void checkExpiry(String token) throws CapacityException {
        String e = claim(token, "exp");
        Long exp = e == null || !e.matches("\\d{1,12}") ? null : Long.valueOf(e);
        if (exp != null && exp * 1000 < System.currentTimeMillis()) {
            throw new CapacityException("the JWT in " + jwtFile + " expired at " + java.time.Instant.ofEpochSecond(exp)
                    + ": make a new one where Slurm runs with 'scontrol token lifespan=SECONDS' and write its value to " + jwtFile
                    + " (read again before every request: no restart needed)");
        }
    }

    /** One request; a refused token, an error list or an unreachable slurmrestd is a CapacityException saying which. */
    private JsonNode call(String method, String path, JsonNode body) throws CapacityException {
        String token = token();
        checkExpiry(token);
        // HttpURLConnection, not java.net.http: slurmrestd 22.05's header lines trip the latter's strict parser
        int status;
        String text;
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
            c.setConnectTimeout((int) WAIT.toMillis());
            c.setReadTimeout((int) WAIT.toMillis());
            c.setRequestMethod(method);
            c.setRequestProperty("Accept", "application/json");
            c.setRequestProperty("X-SLURM-USER-TOKEN", token);
            String user = claim(token, "sun");
            if (user != null) {
                c.setRequestProperty("X-SLURM-USER-NAME", user);
            }
            if (body != null) {
                c.setDoOutput(true);
                c.setRequestProperty("Content-Type", "application/json");
                try (OutputStream out = c.getOutputStream()) {
                    out.write(body.toString().getBytes(StandardCharsets.UTF_8));
                }
            }
            status = c.getResponseCode();
            try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
                text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            throw new CapacityException("slurmrestd at " + base + " does not answer: " + e, e, true);
        }
        HttpResponse r = new HttpResponse(status, text);
        JsonNode answer;
        try {
            answer = r.body().isBlank() ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(r.body());
        } catch (IOException e) {
            answer = Json.MAPPER.createObjectNode().put("text", r.body());
        }
        List<String> errors = new ArrayList<>();
        answer.path("errors").forEach(e -> {
            String description = e.path("description").asText("");
            String error = e.path("error").asText("");
            errors.add(description.isEmpty() ? error : error.isEmpty() ? description : description + " (" + error + ")");
        });
        String said = errors.isEmpty() ? r.body().strip() : String.join("; ", errors);
        if (r.statusCode() == 401 || r.statusCode() == 403 || said.toLowerCase(java.util.Locale.ROOT).matches(
                "(?s).*(authentication|credential|token|jwt).*")) {
            throw new CapacityException("slurmrestd at " + base + " refused the JWT in " + jwtFile + " (HTTP " + r.statusCode()
                    + (said.isEmpty() ? "" : ": " + said) + "): it is wrong or expired; make a new one where Slurm runs with"
                    + " 'scontrol token lifespan=SECONDS' and write its value to " + jwtFile);
        }
        if (r.statusCode() / 100 != 2 || !errors.isEmpty()) {
            // a 5xx, or slurmctld out of reach behind slurmrestd: asking again later may succeed
            throw new CapacityException("slurmrestd at " + base + ": " + method + " " + path + " failed (HTTP " + r.statusCode()
                    + "): " + said, null, r.statusCode() / 100 == 5 || SlurmTools.noAnswer(said));
        }
        return answer;
    }

    /** The JWT: the file's one value ({@code SLURM_JWT=} as scontrol token prints it is allowed); owner-only. */
    private String token() throws CapacityException {
        try {
            if (org.mpfl.ir.cli.FileProblem.openToOthers(jwtFile).isPresent()) {
                throw new CapacityException(jwtFile + " is readable or writable by others: a JWT file must be mode 0600"
                        + " (chmod 600 " + jwtFile + ", and make a new token if others may have read it)");
            }
            String t = Files.readString(jwtFile, StandardCharsets.UTF_8).strip();
            t = t.startsWith("SLURM_JWT=") ? t.substring("SLURM_JWT=".length()) : t;
            if (t.isEmpty() || t.contains("\n")) {
                throw new CapacityException(jwtFile + ": not one JWT (make it with 'scontrol token lifespan=SECONDS')");
            }
            return t;
        } catch (IOException e) {
            throw new CapacityException("cannot read the JWT file " + org.mpfl.ir.cli.FileProblem.of(jwtFile, e), e);
        } catch (UnsupportedOperationException e) {
            throw new CapacityException("cannot check the permissions of " + jwtFile + " (not a POSIX file system)", e);
        }
    }

    /**
     * A claim of a JWT ({@code sun}: the user it speaks for, which slurmrestd wants in X-SLURM-USER-NAME;
     * {@code exp}), or {@code null}. The signature is slurmctld's to check.
     */
    static String claim(String jwt, String name) {
        String[] parts = jwt.split("\\.");
        if (parts.length != 3) {
            return null;
        }
        try {
            JsonNode claims = Json.MAPPER.readTree(Base64.getUrlDecoder().decode(parts[1]));
            String v = claims.path(name).asText(null);
            return v != null && v.matches("[A-Za-z0-9._-]{1,64}") ? v : null;
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    /** Slurm's time notation ({@code MM}, {@code H:MM:SS}, {@code D-H:MM:SS}) in whole minutes, rounded up. */
    static long minutes(String walltime) {
        long days = 0;
        String t = walltime;
        int dash = t.indexOf('-');
        if (dash > 0) {
            days = Long.parseLong(t.substring(0, dash));
            t = t.substring(dash + 1);
        }
        String[] f = t.split(":");
        long seconds = switch (f.length) {
            case 1 -> dash > 0 ? Long.parseLong(f[0]) * 3600 : Long.parseLong(f[0]) * 60;
            case 2 -> dash > 0 ? Long.parseLong(f[0]) * 3600 + Long.parseLong(f[1]) * 60 : Long.parseLong(f[0]) * 60 + Long.parseLong(f[1]);
            default -> Long.parseLong(f[0]) * 3600 + Long.parseLong(f[1]) * 60 + Long.parseLong(f[2]);
        };
        return days * 1440 + (seconds + 59) / 60;
    }
}
