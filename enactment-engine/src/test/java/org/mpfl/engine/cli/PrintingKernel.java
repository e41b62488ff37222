package org.mpfl.engine.cli;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** A Java kernel that prints as a newcomer's first kernel does, with {@code System.out.println} ({@code LocalRunStandardOutputTest}). */
public class PrintingKernel implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        System.out.println("printed by the kernel on rank " + context.rank());
        return Map.of("y", 1.0 + context.rank());
    }
}
