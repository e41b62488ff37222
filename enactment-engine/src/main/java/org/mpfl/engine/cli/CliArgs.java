package org.mpfl.engine.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * The words after a command: positionals, {@code --flag}s, {@code --option value} (or
 * {@code --option=value}) and repeatable {@code --param k=v}. Unknown options are usage errors.
 */
final class CliArgs {
    final List<String> positionals = new ArrayList<>();
    final Map<String, String> options = new LinkedHashMap<>();
    final Map<String, Object> params = new LinkedHashMap<>();
    /** The {@code --param} values exactly as typed (the compiler types them by the declarations). */
    final Map<String, Object> rawParams = new LinkedHashMap<>();
    final Set<String> flags = new java.util.HashSet<>();
    /** Values of {@code --service NAME=CLASS}, which may repeat. */
    final List<String> services = new ArrayList<>();
    /** Values of {@code --sweep NAME=V1,V2}, which may repeat (for commands that accept it). */
    final List<String> sweeps = new ArrayList<>();

    static CliArgs parse(List<String> args, Set<String> valueOptions, Set<String> flagOptions) throws UsageException {
        CliArgs a = new CliArgs();
        for (int i = 0; i < args.size(); i++) {
            String w = args.get(i);
            if (!w.startsWith("--") || w.equals("--")) {
                a.positionals.add(w);
                continue;
            }
            String name = w.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0 && !name.startsWith("param")) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (name.startsWith("param=")) {
                value = name.substring("param=".length());
                name = "param";
            }
            if (flagOptions.contains(name)) {
                a.flags.add(name);
                continue;
            }
            if (!valueOptions.contains(name) && !name.equals("param") && !(name.equals("service") && valueOptions.contains("service"))) {
                throw new UsageException("unknown option --" + name);
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("--" + name + " needs a value");
                }
                value = args.get(++i);
            }
            if (name.equals("sweep")) {
                a.sweeps.add(value);
            } else if (name.equals("service")) {
                if (value.indexOf('=') <= 0) {
                    throw new UsageException("--service needs NAME=CLASS (a RankProgram class on the class path), got '" + value + "'");
                }
                a.services.add(value);
            } else if (name.equals("param")) {
                int e = value.indexOf('=');
                if (e <= 0) {
                    throw new UsageException("--param needs NAME=VALUE, got '" + value + "'");
                }
                a.params.put(value.substring(0, e), scalar(value.substring(e + 1)));
                a.rawParams.put(value.substring(0, e), value.substring(e + 1));
            } else {
                a.options.put(name, value);
            }
        }
        return a;
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

    /** The TLS settings of the {@code --tls-*} options given (see {@link TlsSettings}); {@code NONE} without any. */
    TlsSettings tls() throws java.io.IOException {
        return TlsSettings.fromOptions(options);
    }

    String option(String name) {
        return options.get(name);
    }

    int intOption(String name, int dflt) throws UsageException {
        String v = options.get(name);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number, got '" + v + "'");
        }
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    String onePositional(String what) throws UsageException {
        if (positionals.size() != 1) {
            throw new UsageException(positionals.isEmpty() ? "missing " + what : "expected one " + what + ", got " + positionals);
        }
        return positionals.get(0);
    }
}
