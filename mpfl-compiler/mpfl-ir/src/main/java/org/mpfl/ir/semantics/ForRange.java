package org.mpfl.ir.semantics;

import org.mpfl.ir.IrActivity;
import org.mpfl.ir.eval.RuntimeFault;

/**
 * The values a {@code for} loop variable takes: bounds and step are evaluated once, before the
 * first iteration ({@code from}, then {@code to}, then {@code step}, which defaults to 1); the loop
 * runs while the variable is below {@code to} (above it for a negative step) — {@code to} itself is
 * excluded. The variable is kept as a {@code long} by the callers so that {@code i += step} cannot
 * wrap around near {@link Integer#MAX_VALUE} and loop forever.
 *
 * <pre>{@code
 *   ForRange r = ForRange.of(loop, operands);
 *   for (long i = r.from(); r.includes(i); i = r.after(i)) { ... }
 * }</pre>
 *
 * @param from the first value
 * @param to   the bound, excluded
 * @param step never 0
 */
public record ForRange(int from, int to, int step) {

    /** A range; a step of 0 is refused (the loop would never end). */
    public ForRange {
        if (step == 0) {
            throw new IllegalArgumentException("step 0");
        }
    }

    /**
     * Evaluates the bounds of {@code loop}.
     *
     * @throws RuntimeFault at the step expression if the step is 0; whatever {@code operands}
     *                      throws for an operand it cannot evaluate
     */
    public static ForRange of(IrActivity.For loop, Operands operands) {
        int from = operands.intValue(loop.from(), "from");
        int to = operands.intValue(loop.to(), "to");
        int step = loop.step() == null ? 1 : operands.intValue(loop.step(), "step");
        if (step == 0) {
            throw new RuntimeFault(loop.step().at(), "for " + loop.variable() + ": step is 0, the loop would never end");
        }
        return new ForRange(from, to, step);
    }

    /** Whether the body runs with the variable at {@code value}. */
    public boolean includes(long value) {
        return step > 0 ? value < to : value > to;
    }

    /** The variable's value in the iteration after the one at {@code value}. */
    public long after(long value) {
        return value + step;
    }
}
