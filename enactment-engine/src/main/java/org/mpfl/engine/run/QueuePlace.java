package org.mpfl.engine.run;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a QUEUED run waits in the {@link RunQueue}, as its detail shows it ({@code queue}).
 *
 * @param reason     why its ranks do not fit now (or which run it waits behind)
 * @param position   its place in the queue, 1 first
 * @param priority   its priority (higher first)
 * @param sinceMs    when it entered the queue this time
 * @param deadlineMs when its queue timeout fails it, or {@code null}
 * @param ranks      how many ranks its plan asks for (the run's size while it waits: none is placed yet)
 */
record QueuePlace(String reason, int position, int priority, long sinceMs, Long deadlineMs, int ranks) {
    Map<String, Object> toJson() {
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("reason", reason);
        q.put("position", position);
        q.put("priority", priority);
        q.put("sinceMs", sinceMs);
        q.put("deadlineMs", deadlineMs);
        return q;
    }
}
