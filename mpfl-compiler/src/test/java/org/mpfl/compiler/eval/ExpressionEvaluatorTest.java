package org.mpfl.compiler.eval;

import org.mpfl.ir.eval.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.compiler.TestExpressions;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

class ExpressionEvaluatorTest {
    private final Map<String, Object> values = new HashMap<>();
    private final Map<String, MpflType> types = new HashMap<>();

    /** rank 3 of 8; process P = world ranks 0..3, Q = 4..7; Cartesian 'g' 2x4 periodic in dim 1 only. */
    private final EvaluationEnvironment env = new EvaluationEnvironment() {
        @Override
        public Object variable(String name) {
            return values.get(name);
        }

        @Override
        public int worldRank() {
            return 3;
        }

        @Override
        public int worldSize() {
            return 8;
        }

        @Override
        public int processRank() {
            return 3;
        }

        @Override
        public int processSize() {
            return 4;
        }

        @Override
        public int firstRank(String process) {
            return process.equals("P") ? 0 : 4;
        }

        @Override
        public int rankCount(String process) {
            return 4;
        }

        @Override
        public int commRank(String comm) {
            return comm.equals("g") ? 3 : 3;
        }

        @Override
        public int commSize(String comm) {
            return comm.equals("world") ? 8 : 4;
        }

        @Override
        public int[] coords(String comm) {
            return new int[] {0, 3};
        }

        @Override
        public int neighbor(String comm, int dim, int displacement) {
            return dim == 0 ? -1 : 0;
        }
    };

    private void let(String name, MpflType type, Object value) {
        types.put(name, type);
        values.put(name, value);
    }

    private Object eval(String text) {
        return ExpressionEvaluator.evaluate(TestExpressions.typed(text, types), env);
    }

    @Test
    void arithmeticFollowsTheTypes() {
        assertEquals(7, eval("1 + 2 * 3"));
        assertEquals(9, eval("(1 + 2) * 3"));
        assertEquals(3, eval("7 / 2"));
        assertEquals(-1, eval("-7 % 2 + 0"));
        assertEquals(3.5, eval("7 / 2.0"));
        assertEquals(5000000001L, eval("5000000000L + 1"));
        assertEquals(1e-6, eval("1e-6"));
        assertEquals(-2147483648, eval("-2147483648"));
        assertEquals(2.0, eval("1 + 1L + 0.0"));
    }

    @Test
    void promotionIsExplicitInTheIr() {
        IrExpr expr = TestExpressions.typed("1 + 2L", types);
        IrExpr.Binary b = (IrExpr.Binary) expr;
        assertEquals(MpflType.LONG, b.type());
        assertTrue(b.left() instanceof IrExpr.Convert);
    }

    @Test
    void comparisonsAndWordOperators() {
        assertEquals(true, eval("1 lt 2 and 2 le 2 and 3 gt 2 and 3 ge 3 and 1 eq 1 and 1 ne 2"));
        assertEquals(true, eval("1 < 2 && !(2 > 3) || false"));
        assertEquals(true, eval("not false or 1 / 0 == 1"), "|| short-circuits");
        assertEquals(false, eval("false and 1 / 0 == 1"), "&& short-circuits");
        assertEquals(true, eval("'abc' lt 'abd'"));
        assertEquals(true, eval("'x' == 'x'"));
        assertEquals(true, eval("1 == 1.0"));
        assertEquals(2, eval("true ? 2 : 1 / 0"), "only the chosen branch is evaluated");
    }

    @Test
    void stringsConcatenateWithPlus() {
        let("x", MpflType.INT, 4);
        assertEquals("x=4, y=2.5, ok=true", eval("'x=' + x + ', y=' + 2.5 + ', ok=' + true"));
        assertEquals("it's", eval("'it\\'s'"));
        assertEquals("ab", eval("concat('a', 'b')"));
        assertEquals("[1, 2]", eval("string([1, 2])"));
        // what gathers leave in an object: booleans as boolean[], strings and objects as a list
        let("flags", MpflType.OBJECT, new boolean[] {false, true});
        assertEquals("[false, true]", eval("string(flags)"));
        assertEquals("flags [false, true]", eval("'flags ' + flags"));
        let("mixed", MpflType.OBJECT, java.util.List.of("a", new int[] {1, 2}, new boolean[] {true}));
        assertEquals("[a, [1, 2], [true]]", eval("string(mixed)"));
    }

    @Test
    void arraysIndexAndSlice() {
        let("a", MpflType.DOUBLE_ARRAY, new double[] {1, 2, 3, 4});
        assertEquals(3.0, eval("a[2]"));
        assertArrayEquals(new double[] {2, 3}, (double[]) eval("a[1:3]"));
        assertArrayEquals(new double[] {1, 2.5}, (double[]) eval("[1, 2.5]"));
        assertArrayEquals(new long[] {1, 2}, (long[]) eval("[1, 2L]"));
        assertEquals(4, eval("len(a)"));
        assertEquals(10.0, eval("sum(a)"));
        assertEquals(4.0, eval("max(a)"));
        assertEquals(1.0, eval("min(a)"));
        assertEquals("bc", eval("'abcd'[1:3]"));
    }

    @Test
    void stringsCountCharactersNotUtf16Units() {
        // U+1F321 (thermometer) is one character, two UTF-16 units
        let("s", MpflType.STRING, "\uD83C\uDF21x\u00e9");
        assertEquals(3, eval("len(s)"));
        assertEquals(1, eval("len('\uD83C\uDF21')"));
        assertEquals("\uD83C\uDF21", eval("s[0:1]"), "a slice never cuts a character in half");
        assertEquals("x\u00e9", eval("s[1:3]"));
        assertEquals("", eval("s[3:3]"));
        RuntimeFault beyond = assertThrows(RuntimeFault.class, () -> eval("s[0:4]"));
        assertEquals("slice [0:4] out of range for length 3", beyond.getMessage());
    }

    @Test
    void faultsCarryTheirSourceLocation() {
        let("a", MpflType.INT_ARRAY, new int[] {1, 2});
        let("zero", MpflType.INT, 0);
        RuntimeFault division = assertThrows(RuntimeFault.class, () -> eval("1 + 7 / zero"));
        assertEquals("integer division by zero", division.getMessage());
        assertEquals("t.mpfl.xml:1:14", division.location().toString());
        RuntimeFault modulo = assertThrows(RuntimeFault.class, () -> eval("7L % zero"));
        assertEquals("integer division by zero", modulo.getMessage());
        RuntimeFault index = assertThrows(RuntimeFault.class, () -> eval("a[2]"));
        assertEquals("index 2 out of range for length 2", index.getMessage());
        assertEquals("t.mpfl.xml:1:9", index.location().toString());
        assertThrows(RuntimeFault.class, () -> eval("a[-1]"));
        assertThrows(RuntimeFault.class, () -> eval("a[1:3]"));
        assertThrows(RuntimeFault.class, () -> eval("int(1e12)"));
        assertThrows(RuntimeFault.class, () -> eval("int('x')"));
        assertThrows(RuntimeFault.class, () -> eval("zeros(-1)"));
        assertThrows(RuntimeFault.class, () -> eval("min(izeros(0))"));
        assertEquals(Double.POSITIVE_INFINITY, eval("1.0 / 0"), "double division follows IEEE");
    }

    @Test
    void builtinFunctions() {
        assertEquals(2.0, eval("sqrt(4)"));
        assertEquals(1024.0, eval("pow(2, 10)"));
        assertEquals(2.0, eval("floor(2.7)"));
        assertEquals(3.0, eval("ceil(2.1)"));
        assertEquals(0.0, eval("log(1)"));
        assertEquals(1.0, eval("exp(0)"));
        assertEquals(5, eval("abs(-5)"));
        assertEquals(2L, eval("min(2L, 3)"));
        assertEquals(3.5, eval("max(2, 3.5)"));
        assertEquals(2, eval("int(2.9)"));
        assertEquals(-2, eval("int(-2.9)"));
        assertEquals(42L, eval("long('42')"));
        assertEquals(1.5, eval("double('1.5')"));
        assertArrayEquals(new double[3], (double[]) eval("zeros(3)"));
        assertArrayEquals(new int[2], (int[]) eval("izeros(2)"));
        assertArrayEquals(new long[] {7, 7}, (long[]) eval("fill(2, 7L)"));
        assertArrayEquals(new int[] {2, 3, 4}, (int[]) eval("range(2, 5)"));
        assertArrayEquals(new int[0], (int[]) eval("range(5, 2)"));
        assertArrayEquals(new int[] {1, 2, 3}, (int[]) eval("concat([1], [2, 3])"));
        assertArrayEquals(new int[] {4, 3}, (int[]) eval("dims(12, 2)"));
        assertArrayEquals(new int[] {3, 2, 2}, (int[]) eval("dims(12, 3)"));
        assertArrayEquals(new int[] {7, 1}, (int[]) eval("dims(7, 2)"));
        assertArrayEquals(new int[] {2, 2, 2}, (int[]) eval("dims(8, 3)"));
    }

    @Test
    void runtimeBuiltinsAskTheEnvironment() {
        assertEquals(3, eval("rank"));
        assertEquals(8, eval("size"));
        assertEquals(3, eval("prank"));
        assertEquals(4, eval("psize"));
        assertEquals(4, eval("first('Q')"));
        assertEquals(4, eval("count('P')"));
        assertEquals(8, eval("size('world')"));
        assertArrayEquals(new int[] {0, 3}, (int[]) eval("coords('g')"));
        assertEquals(-1, eval("neighbor('g', 0, 1)"));
        assertEquals(0, eval("neighbor(g, 1, 1)"), "a bare communicator name is accepted");
    }

    @Test
    void constantEnvironmentRefusesRankDependentValues() {
        IrExpr rank = TestExpressions.typed("rank + 1", types);
        assertThrows(ConstantEnvironment.NotConstantException.class,
                () -> ExpressionEvaluator.evaluate(rank, new ConstantEnvironment(Map.of())));
    }

    @Test
    void valuesHelpers() {
        assertEquals(0L, Values.zero(MpflType.LONG));
        assertEquals(0, ((int[]) Values.zero(MpflType.INT_ARRAY)).length);
        assertEquals(2.0, Values.coerce(2, MpflType.DOUBLE));
        assertEquals(null, Values.coerce(2.0, MpflType.INT));
        assertEquals(MpflType.BYTES, Values.typeOf(new byte[1]));
        int[] original = {1};
        int[] copy = (int[]) Values.copy(original);
        copy[0] = 9;
        assertEquals(1, original[0]);
        int[] target = new int[2];
        ExpressionEvaluator.storeElement(target, 1, 5, null);
        assertEquals(5, target[1]);
        assertThrows(RuntimeFault.class, () -> ExpressionEvaluator.storeElement(target, 2, 5, null));
    }
}
