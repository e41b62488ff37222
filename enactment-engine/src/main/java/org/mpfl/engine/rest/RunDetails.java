package org.mpfl.engine.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;
import org.mpfl.engine.access.AccessPolicy;
import org.mpfl.engine.run.RunService;

/**
 * A run's detail as the REST API and the event stream's snapshot give it: the run service's view, with whose run it
 * is ({@code project}, {@code owner}) from the access store, so that on an engine shared by several projects an admin,
 * or a user in two, tells them apart (console, {@code mpflc status}).
 */
final class RunDetails {
    private RunDetails() {
    }

    static Optional<JsonNode> of(String runId, RunService runs, AccessPolicy access) {
        Optional<JsonNode> detail = runs.detail(runId);
        detail.ifPresent(run -> access.runOwnership(runId).ifPresent(o -> {
            if (run instanceof ObjectNode n) { // a fresh copy each time (RunView): adding to it changes no stored run
                n.put("project", o.project()).put("owner", o.owner());
            }
        }));
        return detail;
    }
}
