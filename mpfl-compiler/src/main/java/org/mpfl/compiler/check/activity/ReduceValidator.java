package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrActivity.ReduceOp;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.spelling.Suggestions;

/** {@code <reduce>}, {@code <allreduce>} and {@code <scan>}: an op that fits the data's type; only reduce has a root. */
final class ReduceValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        boolean rooted = e.name().equals("reduce");
        IrExpr root = rooted ? context.attrs().expression(e, "root", scope, MpflType.INT) : null;
        IrExpr data = context.attrs().expression(e, "data", scope);
        ReduceOp op = reduceOp(context, e, data);
        IrTarget into = context.attrs().target(e, "into", scope);
        String comm = context.attrs().communicator(e, "comm");
        String algorithm = context.algorithm(e);
        boolean ok = allPresent(data, op, into, comm, algorithm) && (!rooted || root != null);
        if (data != null && into != null && !into.type().accepts(data.type())) {
            context.error(into.at(), "'into' of <" + e.name() + "> must hold " + data.type() + " like 'data', found " + into.type());
            ok = false;
        }
        if (!ok) {
            return null;
        }
        return switch (e.name()) {
            case "reduce" -> new IrActivity.Reduce(root, data, op, into, comm, algorithm, e.location());
            case "allreduce" -> new IrActivity.Allreduce(data, op, into, comm, algorithm, e.location());
            default -> new IrActivity.Scan(data, op, into, comm, algorithm, e.location());
        };
    }

    /**
     * The op another language's name means ({@code MPI_SUM}, {@code add}, {@code and}), which a spelling distance misses
     * or gets wrong ({@code add} is nearest {@code land}, {@code mean} nearest {@code min}); else the nearest spelling.
     */
    private static String opHint(String written) {
        String word = written.toLowerCase(Locale.ROOT);
        word = word.startsWith("mpi_") ? word.substring(4) : word;
        if (AVERAGES.contains(word)) {
            return " (no " + word + " op: reduce with 'sum' and divide by the count)";
        }
        if (ReduceOp.of(word) != null) {
            return " (did you mean '" + word + "'?)";
        }
        String meant = OTHER_NAMES.get(word);
        return meant != null ? " (did you mean '" + meant + "'?)" : Suggestions.didYouMean(written, OPS);
    }

    private static final List<String> OPS = List.of("sum", "prod", "min", "max", "land", "lor", "band", "bor");
    private static final Set<String> AVERAGES = Set.of("avg", "mean", "average");
    private static final Map<String, String> OTHER_NAMES = Map.ofEntries(
            Map.entry("add", "sum"), Map.entry("plus", "sum"), Map.entry("total", "sum"),
            Map.entry("mul", "prod"), Map.entry("mult", "prod"), Map.entry("multiply", "prod"), Map.entry("times", "prod"),
            Map.entry("product", "prod"), Map.entry("minimum", "min"), Map.entry("maximum", "max"),
            Map.entry("and", "land"), Map.entry("all", "land"), Map.entry("or", "lor"), Map.entry("any", "lor"),
            Map.entry("bitand", "band"), Map.entry("bitor", "bor"));

    // when 'data' itself is wrong only the op's spelling is checked: its fit would be a second error about the same mistake
    private static ReduceOp reduceOp(ActivityContext context, Element e, IrExpr data) {
        Attribute a = e.attribute("op");
        if (a == null) {
            return null;
        }
        ReduceOp op = ReduceOp.of(a.value().trim());
        if (op == null) {
            context.error(a.location(), "unknown reduction op '" + a.value().trim() + "' (sum prod min max land lor band bor)"
                    + opHint(a.value().trim()));
            return null;
        }
        if (data == null) {
            return op;
        }
        MpflType t = data.type();
        MpflType element = t.isNumericArray() ? t.elementType() : t;
        boolean fits = switch (op) {
            case SUM, PROD, MIN, MAX -> element.isNumeric();
            case LAND, LOR -> t == MpflType.BOOLEAN;
            case BAND, BOR -> element.isIntegral();
        };
        if (!fits) {
            String needs = switch (op) {
                case SUM, PROD, MIN, MAX -> "numbers or numeric arrays";
                case LAND, LOR -> "booleans";
                case BAND, BOR -> "int/long values or arrays";
            };
            context.error(a.location(), "op '" + op.spelling() + "' works on " + needs + ", 'data' is " + t);
            return null;
        }
        return op;
    }
}
