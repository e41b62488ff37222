package org.mpfl.engine.run;

/** Hears what happens in one run, live (the SSE stream of {@code GET /api/runs/{id}/events}). */
@FunctionalInterface
public interface RunListener {
    /**
     * @param eventId increasing id of the stored event (usable as SSE {@code id})
     * @param kind    {@code rank} for a rank event, {@code run} for a run state change
     * @param body    the event as JSON-ready object
     */
    void onEvent(long eventId, String kind, Object body);
}
