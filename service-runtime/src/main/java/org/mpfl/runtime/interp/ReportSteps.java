package org.mpfl.runtime.interp;

import org.mpfl.compiler.ir.IrActivity;
import org.mpfl.compiler.ir.eval.ExpressionEvaluator;
import org.mpfl.compiler.ir.eval.Values;

/** {@code output}, {@code log}, {@code progress} and {@code fail}: what a rank reports to the engine. */
final class ReportSteps {

    void execute(IrActivity a, Frame f) {
        RankState rank = f.rank();
        if (a instanceof IrActivity.Output x) {
            // a copy: the engine's record must not change when the program later updates the array
            rank.context().output(x.name(), Values.copy(ExpressionEvaluator.evaluate(x.value(), f)));
        } else if (a instanceof IrActivity.Log x) {
            String level = x.level() == null ? "info" : x.level().spelling();
            rank.context().log(level, String.valueOf(ExpressionEvaluator.evaluate(x.message(), f)));
        } else if (a instanceof IrActivity.Progress x) {
            double value = ((Number) ExpressionEvaluator.evaluate(x.value(), f)).doubleValue();
            double total = ((Number) ExpressionEvaluator.evaluate(x.total(), f)).doubleValue();
            rank.context().progress(value, total);
        } else if (a instanceof IrActivity.Fail x) {
            throw new RankFault("fail", x.at(), String.valueOf(ExpressionEvaluator.evaluate(x.message(), f)));
        } else {
            throw new IllegalStateException("activity kind not handled by the interpreter: " + a);
        }
    }
}
