package org.mpfl.runtime.interp.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/**
 * Test activity: prints what its one input names — "lines" (a stdout line, a stderr line with an escape, and
 * a line without newline), "logs" (a warning through the host's SLF4J logger), or "many" (10 000 lines of 100 bytes, more than a call's log budget) — with its rank.
 */
public class Prints implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        String what = (String) inputs.values().iterator().next();
        if (what.equals("logs")) {
            // as runtime code an activity calls may log on the rank's thread: the host's line, not the activity's
            org.slf4j.LoggerFactory.getLogger(Prints.class).warn("a line of the host's log");
        } else if (what.equals("many")) {
            for (int i = 0; i < 10_000; i++) {
                System.out.println("line " + i + " " + "x".repeat(90));
            }
        } else {
            System.out.println("out of rank " + context.rank());
            System.err.println("err of rank " + context.rank() + " \u001b[31mred");
            System.out.print("open of rank " + context.rank());
        }
        return Map.of();
    }
}
