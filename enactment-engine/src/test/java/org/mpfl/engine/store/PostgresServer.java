package org.mpfl.engine.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.Ports;

/**
 * A throwaway PostgreSQL server for tests: Debian's server binaries ({@code /usr/lib/postgresql/N/bin},
 * the newest N; {@code $MPFL_PG_BIN} overrides), a cluster made by {@code initdb} in a temporary
 * directory, listening on 127.0.0.1 on a free port outside the ephemeral range with its socket in that directory, password
 * authentication (SCRAM) for the user {@value #USER}. As root the binaries run as the {@code postgres}
 * user (PostgreSQL refuses to run as root). {@link #close()} stops the server ({@code pg_ctl stop -m
 * immediate}) and deletes the directory.
 *
 * <p>When the binaries are missing or the server does not start, {@link #start()} fails with what to do;
 * the tests that need it are never skipped.
 */
public final class PostgresServer implements AutoCloseable {
    /** The database user the tests connect as. */
    public static final String USER = "mpfl";
    private static final long STEP_SECONDS = 60;
    /** Ports tried before giving up: another one is needed only when a port was taken between its pick and the bind. */
    private static final int PORT_ATTEMPTS = 5;

    private final Path dir;
    private final Path bin;
    private final boolean asPostgres;
    private final String password;
    private final Path passwordFile;
    /** The port the server listens on, once {@link #listen} started it. */
    private int port;
    private boolean running;

    private PostgresServer(Path dir, Path bin, boolean asPostgres, String password, Path passwordFile) {
        this.dir = dir;
        this.bin = bin;
        this.asPostgres = asPostgres;
        this.password = password;
        this.passwordFile = passwordFile;
    }

    /** Makes a cluster in a new temporary directory and starts the server. */
    public static PostgresServer start() throws IOException, InterruptedException {
        return start(Ports::outsideEphemeralRange);
    }

    /** Where the next port to try comes from (a test gives ports of its own). */
    @FunctionalInterface
    interface PortSource {
        int next() throws IOException;
    }

    /** As {@link #start()}, the ports to try taken from {@code ports}. */
    static PostgresServer start(PortSource ports) throws IOException, InterruptedException {
        Path bin = binaries();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("mpfl-pg-");
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Path passwordFile = Files.writeString(dir.resolve("password"), password + "\n", StandardCharsets.UTF_8);
        if (root) {
            // the server runs as postgres: it must own the directory (0700) and read the password file
            UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(dir, users.lookupPrincipalByName("postgres"));
            Files.setOwner(passwordFile, users.lookupPrincipalByName("postgres"));
        }
        Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-------"));
        PostgresServer server = new PostgresServer(dir, bin, root, password, passwordFile);
        try {
            server.run("initdb", "-D", dir.resolve("data").toString(), "-U", USER, "--pwfile=" + passwordFile,
                    "-A", "scram-sha-256", "-E", "UTF8", "--no-sync");
            server.listen(ports);
            server.running = true;
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * Starts the server on a port from {@code ports}, taken only now (initdb takes seconds on a loaded machine), and on
     * another if that one was taken meanwhile (the server then fails with "could not bind ... Address already in use").
     * A port from {@code bind(0)} was in the kernel's ephemeral range, from which every dialling client of the test JVMs
     * beside this one takes its own port; one outside it ({@link Ports#outsideEphemeralRange()}) is taken only by an
     * explicit bind, such as another JVM's random pick.
     */
    private void listen(PortSource ports) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            port = ports.next();
            try {
                run("pg_ctl", "-D", dir.resolve("data").toString(), "-l", dir.resolve("server.log").toString(), "-w",
                        "-t", String.valueOf(STEP_SECONDS), "-o",
                        "-c listen_addresses=127.0.0.1 -c port=" + port + " -c unix_socket_directories=" + dir
                                + " -c fsync=off", "start");
                return;
            } catch (IOException e) {
                if (attempt == PORT_ATTEMPTS || !e.getMessage().contains("Address already in use")) {
                    throw e;
                }
                Files.deleteIfExists(dir.resolve("server.log")); // the next attempt's failure says only its own
            }
        }
    }

    /** The JDBC URL of {@code database}. */
    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** The password of {@value #USER}. */
    public String password() {
        return password;
    }

    /** A file holding the password (as {@code mpflc up --jdbc-password-file} reads it). */
    public Path passwordFile() {
        return passwordFile;
    }

    /** Creates an empty database and returns its JDBC URL. */
    public String createDatabase(String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("postgres"), USER, password);
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return url(name);
    }

    @Override
    public void close() {
        try {
            if (running) {
                running = false;
                run("pg_ctl", "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "-t", String.valueOf(STEP_SECONDS),
                        "stop");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot stop the test PostgreSQL server: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            FileTrees.deleteQuietly(dir);
        }
    }

    private void run(String tool, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (asPostgres) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.add(bin.resolve(tool).toString());
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile("mpfl-pg-" + tool, ".log");
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            if (!p.waitFor(STEP_SECONDS + 30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(tool + " did not finish within " + (STEP_SECONDS + 30) + " s: " + cmd);
            }
            if (p.exitValue() != 0) {
                String server = Files.exists(dir.resolve("server.log")) ? "\nserver.log:\n" + Files.readString(dir.resolve("server.log")) : "";
                throw new IOException("PostgreSQL " + tool + " failed (exit " + p.exitValue() + "): " + cmd + "\n"
                        + Files.readString(log) + server);
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The newest {@code /usr/lib/postgresql/N/bin} with initdb and pg_ctl, or {@code $MPFL_PG_BIN}. */
    static Path binaries() throws IOException {
        String given = System.getenv("MPFL_PG_BIN");
        if (given != null && !given.isBlank()) {
            return Path.of(given);
        }
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (Stream<Path> versions = Files.list(root)) {
                Path best = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                        .max(Comparator.comparingInt(b -> version(b.getParent().getFileName().toString())))
                        .orElse(null);
                if (best != null) {
                    return best;
                }
            }
        }
        throw new IOException("the PostgreSQL tests need Debian's PostgreSQL server (initdb, pg_ctl in /usr/lib/postgresql/N/bin):"
                + " apt-get install postgresql (.ci/run does), or set MPFL_PG_BIN to a directory with initdb and pg_ctl");
    }

    private static int version(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
