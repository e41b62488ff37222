package org.mpfl.engine.store;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A run as the store keeps it (one row of {@code runs}): the columns it is found and ordered by, and
 * its detail document (ranks, outputs, attempts, checkpoints …) as the engine last saved it. This is
 * the database's format; what the REST API answers is built from it by the run service's view
 * ({@code org.mpfl.engine.run.RunView}), so the two can change apart.
 *
 * @param id        the run's ID
 * @param workflow  the workflow it runs
 * @param state     its state ({@code PENDING}, {@code RUNNING}, {@code SUCCEEDED}, {@code FAILED}, {@code CANCELLED})
 * @param createdMs when it was accepted
 * @param detail    everything else, a JSON object (its {@code id}, {@code state} and {@code createdMs} equal the columns)
 */
public record RunRecord(String id, String workflow, String state, long createdMs, JsonNode detail) {
    public RunRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(detail, "detail");
    }
}
