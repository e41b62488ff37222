package org.mpfl.ir;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The built-in functions of spec section 3. Those marked {@link #needsRuntime()} ask the
 * evaluation environment (communicators, process layout); the others are pure.
 */
public enum Builtin {
    LEN("len", 1, 1), MIN("min", 1, 2), MAX("max", 1, 2), ABS("abs", 1, 1), SQRT("sqrt", 1, 1),
    EXP("exp", 1, 1), LOG("log", 1, 1), POW("pow", 2, 2), FLOOR("floor", 1, 1), CEIL("ceil", 1, 1),
    TO_INT("int", 1, 1), TO_LONG("long", 1, 1), TO_DOUBLE("double", 1, 1), TO_STRING("string", 1, 1),
    ZEROS("zeros", 1, 1), IZEROS("izeros", 1, 1), FILL("fill", 2, 2), RANGE("range", 2, 2),
    CONCAT("concat", 2, 2), SUM("sum", 1, 1),
    FIRST("first", 1, 1, true), COUNT("count", 1, 1, true),
    RANK("rank", 1, 1, true), SIZE("size", 1, 1, true), COORDS("coords", 1, 1, true),
    NEIGHBOR("neighbor", 3, 3, true), DIMS("dims", 2, 2);

    private final String functionName;
    private final int minArity;
    private final int maxArity;
    private final boolean needsRuntime;

    Builtin(String functionName, int minArity, int maxArity) {
        this(functionName, minArity, maxArity, false);
    }

    Builtin(String functionName, int minArity, int maxArity, boolean needsRuntime) {
        this.functionName = functionName;
        this.minArity = minArity;
        this.maxArity = maxArity;
        this.needsRuntime = needsRuntime;
    }

    @JsonValue
    public String functionName() {
        return functionName;
    }

    public int minArity() {
        return minArity;
    }

    public int maxArity() {
        return maxArity;
    }

    /** Whether evaluation asks the environment (communicator or process layout). */
    public boolean needsRuntime() {
        return needsRuntime;
    }

    /** Whether the first argument names a communicator ({@code rank('g')}) or a process ({@code first('P')}). */
    public boolean takesName() {
        return needsRuntime;
    }

    @JsonCreator
    public static Builtin byName(String name) {
        for (Builtin b : values()) {
            if (b.functionName.equals(name)) {
                return b;
            }
        }
        return null;
    }
}
