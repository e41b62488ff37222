package org.mpfl.ir.plan;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrParam;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.ConstantEnvironment;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.RuntimeFault;

/**
 * Param values for a compilation or a run: defaults, overridden by {@code name=value} texts (from
 * {@code --param}, or a REST request's {@code params}), each parsed according to the param's type. Also checks
 * that every process gets at least one rank with these values.
 */
public final class ParamValues {
    private ParamValues() {
    }

    /**
     * How a diagnostic names a value given for a param: as it was given, so that whoever gave it finds it. The command
     * line's {@code --param NAME=TEXT} ({@link #COMMAND_LINE}); a REST request's field {@code 'params.NAME'}
     * ({@link #JSON_FIELD}), where the command line's option meant nothing to a client that never typed one.
     */
    @FunctionalInterface
    public interface Naming {
        /** The command line's {@code --param NAME=TEXT}. */
        Naming COMMAND_LINE = (name, text) -> "--param " + name + (text == null ? "" : "=" + text);
        /** A JSON request's field {@code params.NAME} (the value after it). */
        Naming JSON_FIELD = (name, text) -> "'params." + name + "'" + (text == null ? "" : " (" + text + ")");

        /** The value given for {@code name}, {@code text} included unless {@code null}. */
        String name(String name, String text);
    }

    /** {@link #resolve(IrWorkflow, Map, Diagnostics, SourceLocation, Naming)} of values from the command line. */
    public static Map<String, Object> resolve(IrWorkflow workflow, Map<String, String> overrides, Diagnostics diagnostics,
            SourceLocation at) {
        return resolve(workflow, overrides, diagnostics, at, Naming.COMMAND_LINE);
    }

    /**
     * Resolves values. A value that does not fit its param's type is reported at the param's declaration
     * (which says the type); a name the workflow does not declare at {@code at} (the workflow element,
     * since given values have no place in the document), with the names it does declare. Params
     * with neither default nor override are absent.
     *
     * @param naming how the diagnostics name a given value
     */
    public static Map<String, Object> resolve(IrWorkflow workflow, Map<String, String> overrides, Diagnostics diagnostics,
            SourceLocation at, Naming naming) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (IrParam p : workflow.params()) {
            if (p.defaultValue() instanceof IrExpr.Const c) {
                values.put(p.name(), c.value());
            }
        }
        overrides.forEach((name, text) -> {
            IrParam param = workflow.params().stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
            if (param == null) {
                List<String> declared = workflow.params().stream().map(IrParam::name).toList();
                diagnostics.error(at, naming.name(name, null) + ": the workflow has no param '" + name + "'"
                        + (declared.isEmpty() ? " (it declares none)" : " (it declares " + String.join(", ", declared) + ")"));
                return;
            }
            Object value = parse(text, param.type());
            if (value == null) {
                diagnostics.error(param.at() != null ? param.at() : at, naming.name(name, text) + ": not a valid " + param.type()
                        + written(param.type()));
                return;
            }
            values.put(name, value);
        });
        return values;
    }

    /**
     * Why a run cannot start without a value for the param {@code name}, which has no default; said at its
     * {@code <param>} ({@code mpflc run}, the engine's start of a run).
     */
    public static String noValue(String name, Naming naming) {
        return "param '" + name + "' has no value: it has no default, so give it with " + naming.name(name, "VALUE");
    }

    /** How a value of the type is written on the command line, for the error about one that is not ({@link #parse}). */
    private static String written(MpflType type) {
        return switch (type) {
            case INT -> " (a decimal integer)";
            case LONG -> " (a decimal integer, optionally ending in L)";
            case DOUBLE -> " (a number such as 2.5 or 1e-6)";
            case BOOLEAN -> " (true or false)";
            default -> "";
        };
    }

    /** A command-line text as a value of a scalar type, or null if it is not one. */
    public static Object parse(String text, MpflType type) {
        String t = text.trim();
        try {
            return switch (type) {
                case INT -> Integer.parseInt(t);
                case LONG -> Long.parseLong(t.endsWith("L") || t.endsWith("l") ? t.substring(0, t.length() - 1) : t);
                case DOUBLE -> {
                    double d = Double.parseDouble(t);
                    yield Double.isFinite(d) ? d : null;
                }
                case BOOLEAN -> t.equals("true") ? Boolean.TRUE : t.equals("false") ? Boolean.FALSE : null;
                case STRING -> text;
                default -> null;
            };
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Evaluates every process's rank count with these values; reports counts below 1 and faults at the
     * process. Returns counts by process name (absent where a param has no value).
     */
    public static Map<String, Integer> rankCounts(IrWorkflow workflow, Map<String, Object> values, Diagnostics diagnostics) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        ConstantEnvironment env = new ConstantEnvironment(values);
        for (IrProcess p : workflow.processes()) {
            if (p.ranks() == null) {
                continue;
            }
            try {
                int count = ExpressionEvaluator.evaluateInt(p.ranks(), env);
                if (count < 1) {
                    diagnostics.error(p.ranks().at(), "process '" + p.name() + "' gets " + count
                            + " ranks with these params; it needs at least 1");
                } else {
                    counts.put(p.name(), count);
                }
            } catch (RuntimeFault fault) {
                diagnostics.error(fault.location(), "ranks of process '" + p.name() + "': " + fault.getMessage());
            } catch (ConstantEnvironment.NotConstantException unknown) {
                // a param without default and not given: the count is only known at run time
            }
        }
        return counts;
    }
}
