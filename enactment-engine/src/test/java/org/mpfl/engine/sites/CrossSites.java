package org.mpfl.engine.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.mpfl.engine.e2e.TestActivities;
import org.mpfl.engine.e2e.WaitingProgram;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.Http;
import org.mpfl.testing.lab.NetworkLab;

/**
 * The lab of the tests across sites ({@link CrossSiteRelayTest}, {@link CrossSiteFaultsTest}) and
 * what they do in it. Two classes, each with a lab of its own, so that Failsafe's two JVMs run them
 * side by side: one class of all of them bounded the engine module's full tier.
 */
final class CrossSites {
    private CrossSites() {
    }

    /**
     * Two sites of two hosts, each site behind a NAT gateway that admits no connection from outside,
     * the engine, a relay and an attacker on the WAN between them, everything over TLS; the engine started with
     * {@code engineArgs} besides.
     */
    static NetworkLab startLab(String... engineArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("--engine-loss-grace", "0"));
        args.addAll(List.of(engineArgs));
        return NetworkLab.builder().sites(2, 2).capacity(1).tls().hostService("wait", WaitingProgram.class)
                .engineArgs(args.toArray(String[]::new)).start();
    }

    /** Closes the lab and deletes the class's documents (either may be null: the start failed before it). */
    static void close(NetworkLab lab, Path docs) {
        if (lab != null) {
            lab.close();
        }
        if (docs != null) {
            FileTrees.deleteQuietly(docs);
        }
    }

    /**
     * The heat2d sample as a user would run it, its activity code compiled from the samples module's
     * sources into {@code lib/heat2d.jar} next to the document (the samples jar is built after this module).
     */
    static Path heat2dDocument(Path dir) throws Exception {
        Path sources = Path.of("..", "samples", "src", "main", "java");
        Map<String, String> classes = new LinkedHashMap<>();
        for (String c : List.of("org/mpfl/samples/heat2d/SetupPlate", "org/mpfl/samples/heat2d/JacobiSweep",
                "org/mpfl/samples/heat2d/Plate", "org/mpfl/samples/common/Inputs")) {
            classes.put(c, Files.readString(sources.resolve(c + ".java")));
        }
        TestActivities.jar(Files.createDirectories(dir.resolve("lib")).resolve("heat2d.jar"), classes);
        String doc = Files.readString(Path.of("..", "samples", "heat2d", "heat2d.mpfl.xml"));
        assertTrue(doc.contains("<library path=\"../target/mpfl-samples.jar\"/>"), "heat2d's library element changed");
        Path out = dir.resolve("heat2d.mpfl.xml");
        Files.writeString(out, doc.replace("<library path=\"../target/mpfl-samples.jar\"/>", "<library path=\"lib/heat2d.jar\"/>"));
        return out;
    }

    /** The ring sample with {@code ranks} ranks, run with {@code mpflc run}. */
    static JsonNode ring(NetworkLab lab, int ranks) throws Exception {
        return lab.runDocument(Path.of("..", "samples", "ring", "ring.mpfl.xml"), "ranks=" + ranks);
    }

    static void assertSpansSites(NetworkLab lab, String runId) throws Exception {
        Set<String> sites = new TreeSet<>();
        lab.placement(runId).forEach(h -> sites.add(h.substring(0, 2)));
        assertEquals(Set.of("s1", "s2"), sites, "the run must span both sites");
    }

    /** A run of {@link WaitingProgram} on {@code ranks} ranks (it waits until it fails or is stopped); its id. */
    static String startWaitingRun(NetworkLab lab, int ranks) throws Exception {
        Http.Answer a = lab.http().post(lab.engineUrl(lab.engineNode()) + "/api/runs", lab.token(), Map.of("params", Map.of(),
                "plan", Map.of("workflow", "wait", "processes", List.of(Map.of("name", "wait", "service", "wait", "ranks", ranks)))));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    /** A connection from the lab's attacker on the WAN to the relay's port. */
    static Socket attackerToRelay(NetworkLab lab) throws IOException {
        String relay = lab.relayAddress();
        int colon = relay.lastIndexOf(':');
        return lab.attacker().connect(relay.substring(0, colon), Integer.parseInt(relay.substring(colon + 1)));
    }

    static String[] concat(String[] params, String... more) {
        List<String> all = new ArrayList<>(List.of(params));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }
}
