package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The frames a Java activity's fault shows: from the throw down to the activity's entry, then its causes the same way. */
class ActivityTraceTest {
    private static StackTraceElement at(String cls, String method, int line) {
        return new StackTraceElement(cls, method, cls.substring(cls.lastIndexOf('.') + 1) + ".java", line);
    }

    private static final StackTraceElement[] INTERPRETER = {
        at("org.mpfl.runtime.interp.ComputeStep", "run", 74),
        at("org.mpfl.runtime.interp.Interpreter", "step", 120),
    };

    private static StackTraceElement[] trace(StackTraceElement... top) {
        StackTraceElement[] all = new StackTraceElement[top.length + INTERPRETER.length];
        System.arraycopy(top, 0, all, 0, top.length);
        System.arraycopy(INTERPRETER, 0, all, top.length, INTERPRETER.length);
        return all;
    }

    @Test
    void framesRunFromTheThrowToTheActivitysExecuteAndNoFurther() {
        IllegalStateException e = new IllegalStateException("diverged");
        e.setStackTrace(trace(at("java.util.HashMap", "get", 556), at("org.x.Solver", "step", 42),
                at("org.x.Solver", "execute", 17)));
        assertEquals("""

                \tat java.util.HashMap.get(HashMap.java:556)
                \tat org.x.Solver.step(Solver.java:42)
                \tat org.x.Solver.execute(Solver.java:17)""", ActivityTrace.of(e, "org.x.Solver", "execute"));
    }

    @Test
    void aKernelCallingAnInstanceOfItsOwnClassIsShownDownToTheInterpretersCall() {
        RuntimeException e = new RuntimeException();
        e.setStackTrace(trace(at("org.x.Tree", "execute", 9), at("org.x.Tree", "execute", 12)));
        String text = ActivityTrace.of(e, "org.x.Tree", "execute");
        assertEquals(2, text.split("\n\tat ", -1).length - 1, text);
        assertTrue(text.endsWith("org.x.Tree.execute(Tree.java:12)"), text);
    }

    @Test
    void causesFollowEachCutAtTheEntryAndAConstructorsEntryIsItsInit() {
        java.io.IOException cause = new java.io.IOException("no such file: mesh.dat");
        cause.setStackTrace(trace(at("java.io.FileInputStream", "open0", -2), at("org.x.Mesh", "<init>", 30)));
        IllegalArgumentException e = new IllegalArgumentException("cannot read the mesh", cause);
        e.setStackTrace(trace(at("org.x.Mesh", "<init>", 33)));
        String text = ActivityTrace.of(e, "org.x.Mesh", "<init>");
        assertEquals("""

                \tat org.x.Mesh.<init>(Mesh.java:33)
                Caused by: java.io.IOException: no such file: mesh.dat
                \tat java.io.FileInputStream.open0(Native Method)
                \tat org.x.Mesh.<init>(Mesh.java:30)""", text);
    }

    @Test
    void aDeepRecursionIsCutSayingHowManyFramesAreLeftOut() {
        StackTraceElement[] top = new StackTraceElement[100];
        for (int i = 0; i < top.length - 1; i++) {
            top[i] = at("org.x.Fib", "fib", 5);
        }
        top[top.length - 1] = at("org.x.Fib", "execute", 3);
        StackOverflowError e = new StackOverflowError();
        e.setStackTrace(trace(top));
        String text = ActivityTrace.of(e, "org.x.Fib", "execute");
        assertEquals(ActivityTrace.MAX_FRAMES, text.split("\n\tat ", -1).length - 1, text);
        assertTrue(text.endsWith("\n\t... " + (top.length - ActivityTrace.MAX_FRAMES) + " more"), text);
    }

    @Test
    void anExceptionFromAnotherThreadShowsItsTopFramesOnly() {
        RuntimeException e = new RuntimeException("in a pool thread");
        StackTraceElement[] pool = new StackTraceElement[12];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = at("java.util.concurrent.ForkJoinTask", "doExec" + i, i);
        }
        e.setStackTrace(pool);
        String text = ActivityTrace.of(e, "org.x.Solver", "execute");
        assertEquals(8, text.split("\n\tat ", -1).length - 1, text);
        assertTrue(text.endsWith("\n\t... 4 more"), text);
    }
}
