package org.mpfl.runtime.host;

import java.time.Duration;
import org.mpfl.protocol.RankEvent;

/**
 * Where one rank's events go: to the engine over HTTP in a service host ({@link EventPoster}), or straight to
 * the caller for ranks run as threads of the command line's JVM ({@link InProcessHost}).
 */
interface RankEvents {

    /** Takes an event; never blocks on the network. */
    void post(RankEvent event);

    /** Waits, at most {@code max}, until the events taken so far have reached their receiver. */
    void flush(Duration max);
}
