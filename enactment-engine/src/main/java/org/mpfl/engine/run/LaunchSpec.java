package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.engine.json.Json;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.protocol.RunRequest.ProcessSlice;

/**
 * What placing a run's ranks needs, kept for its restarts and resumes: in memory while the engine holds
 * the run, and in the run store ({@link #toJson}, table {@code run_launches}) so that an engine started
 * after this one can still restart or resume it.
 *
 * @param layout   the plan's process layout for the run's parameter values
 * @param services process → the service name its ranks are placed on (deployed name)
 * @param slices   the run request's process slices (the plan's service types)
 * @param queueing its priority, oversubscription and queue timeout
 * @param project  the run's project: its ranks are placed only on services it may use
 *                 ({@link org.mpfl.engine.deploy.DeploymentService#usableBy}); {@code null}: any (a run started inside
 *                 the engine's JVM, or stored before launches named their project)
 */
record LaunchSpec(ProcessLayout layout, Map<String, String> services, List<ProcessSlice> slices, Queueing queueing,
                  String project) {
    /** How many ranks the run has. */
    int ranks() {
        return slices.stream().mapToInt(ProcessSlice::ranks).sum();
    }

    /**
     * As stored: {@code {slices: [{name, service, ranks}], services: {process: deployed name}, restartsAllowed,
     * sites, priority, oversubscribe, queueTimeoutMs, project}} (the queue's columns are in it too, for a run no longer
     * queued).
     */
    ObjectNode toJson(int restartsAllowed) {
        ObjectNode launch = Json.MAPPER.createObjectNode();
        var array = launch.putArray("slices");
        for (ProcessSlice s : slices) {
            array.addObject().put("name", s.name()).put("service", s.service()).put("ranks", s.ranks());
        }
        ObjectNode names = launch.putObject("services");
        services.forEach(names::put);
        launch.put("restartsAllowed", restartsAllowed);
        if (project != null) {
            launch.put("project", project);
        }
        if (queueing.sites() != null) {
            launch.put("sites", queueing.sites().toString());
        }
        launch.put("priority", queueing.priority());
        launch.put("oversubscribe", queueing.oversubscribe());
        if (queueing.queueTimeout() != null) {
            launch.put("queueTimeoutMs", queueing.queueTimeout().toMillis());
        }
        return launch;
    }

    /** A stored launch ({@link #toJson}), with its queueing from the JSON. */
    static LaunchSpec fromJson(JsonNode launch) {
        JsonNode t = launch.path("queueTimeoutMs");
        return fromJson(launch, new Queueing(launch.path("priority").asInt(0), launch.path("oversubscribe").asBoolean(false),
                t.isNumber() ? Duration.ofMillis(t.asLong()) : null, SiteRequest.parse(launch.path("sites").asText(null))));
    }

    /** A stored launch ({@link #toJson}) with the queueing given (the run queue keeps it in columns of its own). */
    static LaunchSpec fromJson(JsonNode launch, Queueing queueing) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        List<ProcessSlice> slices = new ArrayList<>();
        for (JsonNode s : launch.path("slices")) {
            slices.add(new ProcessSlice(s.path("name").asText(), s.path("service").asText(), s.path("ranks").asInt()));
            counts.put(s.path("name").asText(), s.path("ranks").asInt());
        }
        Map<String, String> services = new LinkedHashMap<>();
        launch.path("services").fields().forEachRemaining(f -> services.put(f.getKey(), f.getValue().asText()));
        return new LaunchSpec(ProcessLayout.ofCounts(counts), Map.copyOf(services), List.copyOf(slices), queueing,
                launch.path("project").asText(null));
    }
}
