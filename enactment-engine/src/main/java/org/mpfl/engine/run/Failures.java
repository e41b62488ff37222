package org.mpfl.engine.run;

/** How the run service words a failure it logs or puts into a run's record. */
final class Failures {
    private Failures() {
    }

    /** The first message in a failure's cause chain, or the class name of its root when none has one. */
    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root && root.getMessage() == null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}
