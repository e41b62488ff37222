package org.mpfl.protocol;

import java.util.Objects;

/**
 * A problem that a retry loop meets again and again (a heartbeat, a scheduler poll, a relay link), said once and again
 * only when it changes: logged on every attempt, an expired credential or an engine that is down would fill the log
 * with one line a second for as long as it lasts. Thread-safe.
 */
public final class RepeatedProblem {
    private String last;

    /** Whether {@code message} is news, to be said: the first problem since the last {@link #over()}, or another one. */
    public synchronized boolean isNews(String message) {
        boolean news = !Objects.equals(message, last);
        last = message;
        return news;
    }

    /** The attempt succeeded; whether there had been a problem (so that one may say it is over). */
    public synchronized boolean over() {
        boolean was = last != null;
        last = null;
        return was;
    }
}
