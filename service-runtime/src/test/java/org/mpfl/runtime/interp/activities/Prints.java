package org.mpfl.runtime.interp.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/**
 * Test activity: prints what its one input names — "lines" (a stdout line, a stderr line with an escape, and
 * a line without newline), or "many" (10 000 lines of 100 bytes, more than a call's log budget) — with its rank.
 */
public class Prints implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        String what = (String) inputs.values().iterator().next();
        if (what.equals("many")) {
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
