package org.mpfl.runtime.api;

import java.time.Duration;

/** A pending non-blocking operation. */
public interface Request {
    /** Blocks until the operation completes; returns the message for a receive, {@code null} for a send. */
    Message await();

    /** Like {@link #await()}, failing with {@link ReceiveTimeoutException} after {@code timeout}. */
    Message await(Duration timeout);

    /** Whether the operation has completed (never blocks). Failures are thrown by {@link #await()}. */
    boolean test();

    /** Waits for all requests, in order; returns their results in the same order. */
    static Message[] awaitAll(Request... requests) {
        Message[] out = new Message[requests.length];
        for (int i = 0; i < requests.length; i++) {
            out[i] = requests[i].await();
        }
        return out;
    }
}
