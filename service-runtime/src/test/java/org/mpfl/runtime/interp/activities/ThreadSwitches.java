package org.mpfl.runtime.interp.activities;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** Test activity: how often the calling (rank) thread has slept so far, its voluntary context switches (Linux). */
public class ThreadSwitches implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        try {
            return Map.of("thread", Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
                    .filter(l -> l.startsWith("voluntary_ctxt_switches:"))
                    .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no voluntary_ctxt_switches")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
