package org.mpfl.runtime.interp;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Where a Java activity failed, for the rank's fault message: the exception's stack frames from where
 * it was thrown down to the activity's own entry ({@code execute}, or the constructor), as Java prints
 * them, and the same for each cause. The interpreter's frames below the entry say nothing to the
 * user, as a Python kernel's traceback leaves the worker's frames out.
 */
final class ActivityTrace {
    /** Frames shown at most per exception (a deep recursion in a kernel is cut, saying how much). */
    static final int MAX_FRAMES = 24;
    /** Causes shown at most. */
    private static final int MAX_CAUSES = 4;
    /** Frames shown of an exception whose trace does not pass the entry (thrown by another thread). */
    private static final int FOREIGN_FRAMES = 8;

    private ActivityTrace() {
    }

    /**
     * The frames of {@code e} and its causes, each line starting with a newline ({@code "\n\tat …"},
     * {@code "\nCaused by: …"}); empty when there are none.
     *
     * @param activity the activity's class name
     * @param entry    the method the interpreter called: {@code execute}, or {@code <init>} (the constructor)
     */
    static String of(Throwable e, String activity, String entry) {
        StringBuilder text = new StringBuilder();
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        Throwable t = e;
        for (int n = 0; t != null && n <= MAX_CAUSES && seen.put(t, Boolean.TRUE) == null; n++, t = t.getCause()) {
            if (n > 0) {
                text.append("\nCaused by: ").append(t.getClass().getName())
                        .append(t.getMessage() == null ? "" : ": " + t.getMessage());
            }
            frames(text, t.getStackTrace(), activity, entry);
        }
        return text.toString();
    }

    private static void frames(StringBuilder text, StackTraceElement[] trace, String activity, String entry) {
        // the deepest call of the entry: the interpreter's (a kernel may call an instance of its own class)
        int deepest = -1;
        for (int i = trace.length - 1; i >= 0 && deepest < 0; i--) {
            if (trace[i].getClassName().equals(activity) && trace[i].getMethodName().equals(entry)) {
                deepest = i;
            }
        }
        int end = deepest >= 0 ? deepest + 1 : trace.length; // the frames that are the user's
        int cut = Math.min(end, deepest >= 0 ? MAX_FRAMES : FOREIGN_FRAMES);
        for (int i = 0; i < cut; i++) {
            text.append("\n\tat ").append(frame(trace[i]));
        }
        if (end > cut) {
            text.append("\n\t... ").append(end - cut).append(" more");
        }
    }

    /** A frame as Java prints it, without the class loader's or module's name (the user's jar has neither). */
    private static String frame(StackTraceElement f) {
        String where = f.isNativeMethod() ? "Native Method"
                : f.getFileName() == null ? "Unknown Source"
                : f.getLineNumber() >= 0 ? f.getFileName() + ":" + f.getLineNumber() : f.getFileName();
        return f.getClassName() + "." + f.getMethodName() + "(" + where + ")";
    }
}
