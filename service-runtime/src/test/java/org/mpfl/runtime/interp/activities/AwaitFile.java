package org.mpfl.runtime.interp.activities;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** Test activity: returns once the file named by the input {@code path} exists (at most 30 s, then fails). */
public class AwaitFile implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) throws InterruptedException {
        Path path = Path.of((String) inputs.get("path"));
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!Files.exists(path)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(path + " did not appear within 30 s");
            }
            Thread.sleep(10);
        }
        return Map.of();
    }
}
