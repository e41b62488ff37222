package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.store.RunRecord;

/**
 * A run as the REST API shows it ({@code GET /api/runs/{id}} and the entries of {@code GET /api/runs},
 * documented in {@code docs/openapi.yaml}; the console and the CLI read it). Built from the run's
 * stored {@link RunRecord} (a run this engine no longer holds, or a live run's {@link Run#record()}),
 * or for a live run in a list from its summary. The stored record is the database's format and this
 * view the API's: a change to one goes through here rather than into the other.
 */
public final class RunView {
    /** What a list entry of a stored run leaves out: the per-rank detail is for {@code GET /api/runs/{id}}. */
    private static final List<String> NOT_LISTED = List.of("ranks", "matrix", "siteTraffic");

    private RunView() {
    }

    /** The detail of a run (today: its record's detail document, field for field). */
    public static JsonNode detail(RunRecord record) {
        return record.detail().deepCopy();
    }

    /** The detail of a live run. */
    public static JsonNode detail(Run run) {
        return run.record().detail();
    }

    /** A stored run in a run list: its detail without the per-rank parts. */
    public static JsonNode listed(RunRecord record) {
        JsonNode d = detail(record);
        if (d instanceof ObjectNode o) {
            o.remove(NOT_LISTED);
        }
        return d;
    }

    /** A live run in a run list: its summary (state, times, size, progress, error). */
    public static JsonNode summary(Run run) {
        return Json.MAPPER.valueToTree(run.summaryJson());
    }
}
