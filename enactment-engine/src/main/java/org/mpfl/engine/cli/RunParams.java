package org.mpfl.engine.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.UsageException;

/** A workflow's {@code --param NAME=VALUE}s on the command line of {@code run} and {@code deploy}, declared and read once. */
final class RunParams {
    private RunParams() {
    }

    /** {@code --param NAME=VALUE} (short {@code -p}, as for {@code check} and {@code compile}), repeatable. */
    static ArgumentSpec declare(ArgumentSpec spec) {
        return spec.repeatable("--param", "NAME=VALUE", "a workflow parameter's value (integer, decimal, boolean, JSON array"
                + " or object, else text)").alias("-p", "--param");
    }

    /** The {@code --param} values exactly as typed (the compiler types them by the declarations). */
    static Map<String, Object> rawParams(Arguments a) throws UsageException {
        return new LinkedHashMap<>(a.pairs("--param"));
    }

    /** The {@code --param} values typed as on the command line ({@link #scalar}). */
    static Map<String, Object> params(Arguments a) throws UsageException {
        Map<String, Object> out = new LinkedHashMap<>();
        a.pairs("--param").forEach((k, v) -> out.put(k, scalar(v)));
        return out;
    }

    /** A parameter value as typed on the command line: integer, decimal, boolean, JSON array/object, else text. */
    static Object scalar(String v) {
        if (v.matches("-?\\d{1,18}")) {
            return Long.parseLong(v);
        }
        if (v.matches("-?(\\d+\\.\\d*|\\.\\d+|\\d+)([eE][-+]?\\d+)?")) {
            return Double.parseDouble(v);
        }
        if (v.equals("true") || v.equals("false")) {
            return Boolean.parseBoolean(v);
        }
        if (v.startsWith("[") || v.startsWith("{")) {
            try {
                return org.mpfl.engine.json.Json.MAPPER.readValue(v, Object.class);
            } catch (java.io.IOException e) {
                return v;
            }
        }
        return v;
    }
}
