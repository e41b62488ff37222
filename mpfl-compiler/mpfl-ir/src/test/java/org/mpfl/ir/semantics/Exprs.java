package org.mpfl.ir.semantics;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.ConstantEnvironment;

/** Small IR builders for the semantics tests: constants at distinct locations, and operands that record roles. */
final class Exprs {
    private Exprs() {
    }

    static SourceLocation at(int line) {
        return new SourceLocation("t.mpfl.xml", line, 1);
    }

    static IrExpr num(int value, int line) {
        return new IrExpr.Const(MpflType.INT, value, at(line));
    }

    static IrExpr bool(boolean value, int line) {
        return new IrExpr.Const(MpflType.BOOLEAN, value, at(line));
    }

    static IrExpr ints(int[] value, int line) {
        return new IrExpr.Const(MpflType.INT_ARRAY, value, at(line));
    }

    static IrTarget target(String name) {
        return new IrTarget(name, null, MpflType.INT, at(99));
    }

    /** Plain evaluation that also records the role of every operand read, in order. */
    static final class Recording implements Operands {
        final List<String> roles = new ArrayList<>();
        private final Operands plain = Operands.in(new ConstantEnvironment(java.util.Map.of()));

        @Override
        public Object value(IrExpr expr, String role) {
            roles.add(role);
            return plain.value(expr, role);
        }

        @Override
        public int intValue(IrExpr expr, String role) {
            roles.add(role);
            return plain.intValue(expr, role);
        }

        @Override
        public boolean test(IrExpr expr, String role) {
            roles.add(role);
            return plain.test(expr, role);
        }
    }
}
