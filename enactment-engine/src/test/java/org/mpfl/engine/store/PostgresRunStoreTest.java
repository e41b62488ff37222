package org.mpfl.engine.store;

import org.mpfl.engine.cli.Mpflc;
import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.testing.childjvm.ChildJvm;
import org.mpfl.engine.json.Json;
import org.mpfl.testing.StartsProcesses;

/**
 * {@link RunStoreContract} on a PostgreSQL server started for this class ({@link PostgresServer}), one
 * fresh database per test; and {@code mpflc up --jdbc jdbc:postgresql://… --jdbc-user U
 * --jdbc-password-file F} as a user starts it. Fails (never skips) when the server cannot start.
 */
@StartsProcesses
class PostgresRunStoreTest extends RunStoreContract {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    static PostgresServer server;
    private String url;

    @BeforeAll
    static void startServer() throws Exception {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    EngineConfig storeConfig(EngineConfig config) throws Exception {
        if (url == null) {
            url = server.createDatabase("contract" + DATABASES.incrementAndGet());
        }
        return config.jdbc(url, PostgresServer.USER, server.password());
    }

    /**
     * {@code mpflc up} in its own process (one local host) on PostgreSQL: a ring document runs, the run
     * is in PostgreSQL (no H2 file is made), and after the engine process is stopped and started again
     * the run's record is still there.
     */
    @Test
    @Timeout(240)
    void mpflcUpOnPostgresKeepsItsRunsAcrossARestart() throws Exception {
        String jdbc = server.createDatabase("up");
        Path data = dir.resolve("data");
        Path ring = Path.of("..", "samples", "ring", "ring.mpfl.xml").toAbsolutePath().normalize();
        String id;
        Process first = up(jdbc, data, 1);
        try {
            String engine = engineUrl(first);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = Commands.run(List.of("run", ring.toString(), "--engine", engine, "--data", data.toString(), "--json"),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            JsonNode result = Json.MAPPER.readTree(out.toString(StandardCharsets.UTF_8));
            assertEquals(0, exit, err.toString(StandardCharsets.UTF_8) + out);
            assertEquals("SUCCEEDED", result.get("state").asText(), result.toString());
            id = result.get("run").asText();
        } finally {
            stop(first);
        }
        try (Connection c = DriverManager.getConnection(jdbc, PostgresServer.USER, server.password());
             PreparedStatement p = c.prepareStatement("SELECT state FROM runs WHERE id = ?")) {
            p.setString(1, id);
            try (ResultSet r = p.executeQuery()) {
                assertEquals(true, r.next(), "run " + id + " is in PostgreSQL");
                assertEquals("SUCCEEDED", r.getString(1));
            }
        }
        assertFalse(Files.exists(data.resolve("engine.mv.db")), "no embedded H2 database beside PostgreSQL");
        Process second = up(jdbc, data, 0); // reads the stored run only: no host to start
        try {
            JsonNode run = Http.get(engineUrl(second) + "/api/runs/" + id).json();
            assertEquals("SUCCEEDED", run.get("state").asText(), run.toString());
            assertEquals(6, run.at("/outputs/token/0").asInt(), "0 + 1 + 2 + 3: " + run);
        } finally {
            stop(second);
        }
    }

    /** {@code mpflc up} with {@code hosts} local hosts; C1 only and the serial collector: the engine lives seconds here. */
    private Process up(String jdbc, Path data, int hosts) throws IOException {
        List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"),
                Mpflc.class.getName()));
        cmd.addAll(List.of("up", "--hosts", Integer.toString(hosts), "--port", "0",
                "--data", data.toString(), "--jdbc", jdbc, "--jdbc-user", PostgresServer.USER,
                "--jdbc-password-file", server.passwordFile().toString()));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** The URL from {@code mpflc up}'s first line, within 90 s. */
    private static String engineUrl(Process p) throws Exception {
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> found = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = lines.readLine()) != null; ) {
                    if (line.startsWith("MPFL engine and console: ")) {
                        return line.substring("MPFL engine and console: ".length()).replaceAll("/$", "");
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        String u = found.get(90, TimeUnit.SECONDS);
        if (u == null) {
            throw new AssertionError("mpflc up exited (" + (p.isAlive() ? "alive" : p.exitValue()) + ") without its URL");
        }
        return u;
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
