package org.mpfl.bench;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.ir.cli.UsageException;

/** Option values of the {@code mpflc bench} commands, read one way for all of them. */
public final class BenchArgs {
    private BenchArgs() {
    }

    /** The value after option {@code args[i - 1]}; a usage error when it is missing. */
    public static String value(List<String> args, int i, String option) throws UsageException {
        if (i >= args.size()) {
            throw new UsageException(option + " needs a value");
        }
        return args.get(i);
    }

    /** The value after the option as a number. */
    public static double number(List<String> args, int i, String option) throws UsageException {
        String v = value(args, i, option);
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " wants a number, got " + v);
        }
    }

    /** {@code 2,4,8} → [2, 4, 8]. */
    public static List<Integer> ints(String csv, String option) throws UsageException {
        List<Integer> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            try {
                out.add(Integer.parseInt(s.trim()));
            } catch (NumberFormatException e) {
                throw new UsageException(option + " wants numbers separated by commas, got " + csv);
            }
        }
        return out;
    }
}
