package org.mpfl.runtime.collective;

import java.util.List;
import org.mpfl.runtime.api.Request;

/** Waiting for the requests an algorithm step posted (in order; the first failure propagates). */
final class Requests {
    private Requests() {
    }

    static void awaitAll(List<Request> requests) {
        for (Request r : requests) {
            r.await();
        }
    }
}
