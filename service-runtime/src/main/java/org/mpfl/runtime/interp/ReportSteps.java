package org.mpfl.runtime.interp;

import org.mpfl.ir.IrActivity;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.Values;
import org.mpfl.protocol.RunMessages;

/** {@code output}, {@code log}, {@code progress} and {@code fail}: what a rank reports to the engine. */
final class ReportSteps {

    void execute(IrActivity a, Frame f) {
        RankState rank = f.rank();
        if (a instanceof IrActivity.Output x) {
            // a copy: the engine's record must not change when the program later updates the array
            rank.context().output(x.name(), reportable(Values.copy(ExpressionEvaluator.evaluate(x.value(), f))));
        } else if (a instanceof IrActivity.Log x) {
            String level = x.level() == null ? "info" : x.level().spelling();
            rank.context().log(level, Values.toText(ExpressionEvaluator.evaluate(x.message(), f)));
        } else if (a instanceof IrActivity.Progress x) {
            double value = ((Number) ExpressionEvaluator.evaluate(x.value(), f)).doubleValue();
            double total = ((Number) ExpressionEvaluator.evaluate(x.total(), f)).doubleValue();
            rank.context().progress(value, total);
        } else if (a instanceof IrActivity.Fail x) {
            throw new RankFault("fail", x.at(), Values.toText(ExpressionEvaluator.evaluate(x.message(), f)));
        } else {
            throw new IllegalStateException("activity kind not handled by the interpreter: " + a);
        }
    }

    /**
     * Outputs travel to the engine as JSON. An {@code object} value that JSON cannot represent (a
     * user class without properties, say) is reported by its text instead of breaking the rank's
     * status answers.
     */
    static Object reportable(Object value) {
        if (value == null || Values.typeOf(value) != MpflType.OBJECT) {
            return value;
        }
        try {
            RunMessages.toJson(value);
            return value;
        } catch (RuntimeException e) {
            return String.valueOf(value);
        }
    }
}
