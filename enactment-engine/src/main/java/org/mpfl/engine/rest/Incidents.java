package org.mpfl.engine.rest;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way an engine failure (HTTP 500) is answered: the client gets a fixed sentence and an incident id, the
 * engine's log gets the same id with the exception. An exception's text names classes, SQL statements, file paths
 * and library versions: an answer carrying it told whoever provoked the failure how the engine is built and where
 * it keeps its files (docs/security.md, "Errors").
 */
public final class Incidents {
    private static final Logger LOG = LoggerFactory.getLogger(Incidents.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private Incidents() {
    }

    /** An incident: its id, and the answer's body that names it. */
    public record Incident(String id) {
        /** The JSON body of the 500 answer: {@code {"error": "...", "incident": ID}}. */
        public Map<String, Object> body() {
            return Map.of("error", message(), "incident", id);
        }

        /** What the client reads: nothing about the failure but the id the operator finds it under. */
        public String message() {
            return "internal error (incident " + id + "; the engine's log has the details)";
        }
    }

    /**
     * Logs a failure with a new incident id and returns the incident to answer with.
     *
     * @param where what failed (a route's name, "event stream"), for the log
     */
    public static Incident report(String where, Throwable failure) {
        byte[] b = new byte[6];
        RANDOM.nextBytes(b);
        Incident incident = new Incident(HexFormat.of().formatHex(b));
        LOG.error("incident {}: {} failed", incident.id(), where, failure);
        return incident;
    }
}
