package org.mpfl.engine.run;

import org.apache.camel.CamelExecutionException;

/** How the run service words a failure it logs or puts into a run's record. */
final class Failures {
    private Failures() {
    }

    /**
     * The first message in a failure's cause chain, or the class name of its root when none has one. Camel's
     * wrapper ("Exception occurred during execution on the exchange: Exchange[…]") says nothing: its cause speaks.
     */
    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root
                && (root.getMessage() == null || root instanceof CamelExecutionException)) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}
