package org.mpfl.protocol;

import java.util.Map;

/**
 * One thing a rank reports to the engine (POSTed as JSON to {@code callbackUrl + "/events"} with
 * the headers of {@link RankEventPost}, in order per rank, best effort; the engine also polls {@code status}).
 *
 * @param domainId the domain
 * @param rank     world rank
 * @param seq      per-rank event number from 0, so the engine can order and de-duplicate
 * @param timeMs   epoch milliseconds when it happened
 * @param type     what happened
 * @param state    for {@code STATE}: PENDING, RUNNING, DONE, FAILED, ABORTED
 * @param activity the current activity ("receive", "allreduce", "compute org.x.Step", ...), for
 *                 ACTIVITY/WAIT/STATE(FAILED)
 * @param location source location {@code file:line:col} of that activity, or {@code null}
 * @param message  log text, failure cause, or what a blocked rank waits for
 *                 ("receive from 3 tag 0 comm world")
 * @param level    log level (info, warn, error) for {@code LOG}
 * @param name     output name for {@code OUTPUT}
 * @param value    output value, or progress {@code {"value":v,"total":t}}, or counters
 *                 {@code {"sentTo":{rank:count},"bytesTo":{rank:bytes}}}
 * @param fault    for {@code STATE} FAILED: whose fault the failure is, by which alone the engine decides whether
 *                 it may restart the run; {@code null} on every other event (a FAILED state without it counts as
 *                 {@link FaultKind#WORKFLOW})
 */
public record RankEvent(String domainId, int rank, long seq, long timeMs, Type type, String state,
                        String activity, String location, String message, String level, String name,
                        Object value, FaultKind fault) {

    /** An event that says no fault kind: any but a rank's FAILED state. */
    public RankEvent(String domainId, int rank, long seq, long timeMs, Type type, String state, String activity,
                     String location, String message, String level, String name, Object value) {
        this(domainId, rank, seq, timeMs, type, state, activity, location, message, level, name, value, null);
    }

    /**
     * The longest {@code message} an event carries, in characters. A longer one (a kernel's exception whose text is a
     * 10 MB string, a log line built from a whole array) is cut in the middle, keeping its start and its end, where a
     * traceback's header and its exception line are: the rest would fill the engine's store, the console and the
     * terminal of {@code mpflc run}, and say nothing more.
     */
    public static final int MAX_MESSAGE_CHARS = 64 * 1024;

    /** Bounds {@code message} on both sides of the wire: the host's events, and the engine's reading of any host's. */
    public RankEvent {
        message = bounded(message);
    }

    /**
     * {@code text} itself when it has at most {@link #MAX_MESSAGE_CHARS} characters, else its start and its end (three
     * quarters and a quarter of what is kept) with a line between them saying how many characters were left out; that
     * many characters in all, so that bounding again changes nothing.
     */
    public static String bounded(String text) {
        if (text == null || text.length() <= MAX_MESSAGE_CHARS) {
            return text;
        }
        // the marker's digits are those of a count no larger than the text's length: a bound on its own length
        int room = MAX_MESSAGE_CHARS - marker(text.length()).length();
        int head = room / 4 * 3;
        int tail = room - head;
        // not between the two chars of a surrogate pair: a cut there would leave half a character
        if (Character.isHighSurrogate(text.charAt(head - 1))) {
            head--;
        }
        if (Character.isLowSurrogate(text.charAt(text.length() - tail))) {
            tail--;
        }
        return text.substring(0, head) + marker(text.length() - head - tail) + text.substring(text.length() - tail);
    }

    private static String marker(int leftOut) {
        return "\n[... " + leftOut + " characters left out ...]\n";
    }

    /** Kinds of rank events. */
    public enum Type {
        /** Lifecycle change; {@code state} says which. */
        STATE,
        /** Started an activity (compute, communicate); drives the timeline. */
        ACTIVITY,
        /** Blocked waiting; {@code message} says for what. Cleared by the next ACTIVITY. */
        WAIT,
        /** A log line. */
        LOG,
        /** A progress report. */
        PROGRESS,
        /** An output value of the run. */
        OUTPUT,
        /** Message counters per destination. */
        COUNTERS,
        /**
         * The rank took its part of a checkpoint: {@code value} is {@code {"checkpoint": N, "bytes": B,
         * "ms": T, "stored": true|false}} (T: from the rank reaching it to its part being stored);
         * {@code message} says why the part was not stored when {@code stored} is false.
         */
        CHECKPOINT,
        /**
         * Finished operations for the run's trace, batched and capped by the rank (value
         * {@code {"spans":[…],"dropped":{…}}}: see the runtime's {@code RankMonitor.spans}).
         */
        SPANS
    }

    /** A convenience map form for JSON writers that prefer maps. */
    public Map<String, Object> progress(double v, double total) {
        return Map.of("value", v, "total", total);
    }
}
