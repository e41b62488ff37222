package org.mpfl.runtime.interp;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import org.mpfl.ir.semantics.ForRange;

/**
 * Where the main thread of a rank is in its program, kept up to date by the {@link Executor} so that
 * a checkpoint can save it: one level per activity list being run (the process body, then every
 * nested if arm, loop body and sequence), each with the index of its current activity and, when that
 * activity is an {@code if}, {@code for} or {@code while} whose body runs now, which arm or which
 * iteration. {@code parallel} branches are not followed (the compiler keeps checkpoints out of them).
 * Resuming re-enters the same levels ({@link Executor}); the loop bounds are those evaluated when the
 * loop started, since the variables they read may have changed since.
 */
final class ProgramPosition {

    /** One level as a checkpoint saves it (absent fields: not an if / for / while). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Step(int index, Integer arm, Integer value, Integer from, Integer to, Integer step, Long iteration) {
        /** The loop range saved with this step. */
        ForRange range() {
            if (from == null || to == null || step == null || step == 0) {
                throw ResumePoint.mismatch("a <for> step without its range");
            }
            return new ForRange(from, to, step);
        }
    }

    /** A level being run (mutable, reused: updating the position costs no allocation). */
    static final class Level {
        int index;
        int arm;
        ForRange range;
        long value;
        long iteration;

        void enter(int i) {
            index = i;
            arm = -1;
            range = null;
            iteration = -1;
        }

        Step snapshot() {
            return new Step(index, arm < 0 ? null : arm, range == null ? null : (int) value,
                    range == null ? null : range.from(), range == null ? null : range.to(),
                    range == null ? null : range.step(), iteration < 0 ? null : iteration);
        }
    }

    private final List<Level> levels = new ArrayList<>();
    private int depth;

    Level push() {
        if (depth == levels.size()) {
            levels.add(new Level());
        }
        Level l = levels.get(depth++);
        l.enter(0);
        return l;
    }

    void pop() {
        depth--;
    }

    /** The innermost level: that of the activity list holding the activity being run. */
    Level top() {
        return levels.get(depth - 1);
    }

    /** How many levels are being run (the index of the next one pushed). */
    int depth() {
        return depth;
    }

    List<Step> snapshot() {
        List<Step> out = new ArrayList<>(depth);
        for (int i = 0; i < depth; i++) {
            out.add(levels.get(i).snapshot());
        }
        return out;
    }
}
