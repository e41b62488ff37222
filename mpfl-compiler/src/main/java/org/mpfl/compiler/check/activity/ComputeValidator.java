package org.mpfl.compiler.check.activity;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.AttributeTyping;
import org.mpfl.compiler.check.typing.Names;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.spelling.Suggestions;

/**
 * {@code <compute class|python|command in out>}: one kernel (a Java class name, a Python
 * {@code MODULE:FUNCTION} or an executable's path), inputs that are any visible names, and outputs
 * that are distinct process variables (the user code writes them, so read-only names are refused).
 * Whether the Python module or the executable is among the workflow's libraries is checked with the
 * libraries ({@code KernelLibraryCheck}).
 */
final class ComputeValidator implements ActivityValidator {
    /** {@code MODULE:FUNCTION}: a dotted Python module name and a function name. */
    static final java.util.regex.Pattern PYTHON_TARGET =
            java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*");

    /**
     * What a malformed {@code python} most likely meant, or null: spaces and a call's brackets dropped
     * ({@code heat: step}, {@code heat:step(u)}), a file's module name for its path
     * ({@code kernels/heat.py:step}), a colon for the last dot ({@code heat.step}).
     */
    static String meantPythonTarget(String value) {
        String s = value.replaceAll("\\s+", "");
        int bracket = s.indexOf('(');
        if (bracket >= 0) {
            s = s.substring(0, bracket);
        }
        int split = s.lastIndexOf(':') >= 0 ? s.lastIndexOf(':') : s.lastIndexOf('.');
        if (split < 0) {
            return null;
        }
        String module = s.substring(0, split);
        if (module.contains("/") || module.endsWith(".py")) {
            module = module.substring(module.lastIndexOf('/') + 1);
            module = module.endsWith(".py") ? module.substring(0, module.length() - ".py".length()) : module;
        }
        String meant = module + ":" + s.substring(split + 1);
        return PYTHON_TARGET.matcher(meant).matches() ? meant : null;
    }

    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        List<Attribute> kernels = java.util.stream.Stream.of("class", "python", "command").map(e::attribute)
                .filter(java.util.Objects::nonNull).toList();
        if (kernels.size() != 1) {
            context.error(kernels.isEmpty() ? e.location() : kernels.get(1).location(), kernels.isEmpty()
                    ? "<compute> needs one of class=\"JAVA.CLASS\", python=\"MODULE:FUNCTION\" or command=\"PATH\""
                    : "<compute> takes only one of class, python and command");
            return null;
        }
        Attribute kernel = kernels.get(0);
        String value = kernel.value().trim();
        String className = null;
        String python = null;
        String command = null;
        switch (kernel.name()) {
            case "class" -> {
                if (Names.CLASS_NAME.matcher(value).matches()) {
                    className = value;
                } else {
                    // a path (org/example/Step), a source file or a call: the class name it holds
                    String meant = value.replace('/', '.').replaceAll("(\\.java|\\.class|\\(\\))$", "");
                    context.error(kernel.location(), "'" + value + "' is not a Java class name"
                            + (Names.CLASS_NAME.matcher(meant).matches() ? " (did you mean '" + meant + "'?)"
                            : " (a class's full name: identifiers separated by '.', e.g. org.example.heat.Step)"));
                }
            }
            case "python" -> {
                if (PYTHON_TARGET.matcher(value).matches()) {
                    python = value;
                } else {
                    String meant = meantPythonTarget(value);
                    context.error(kernel.location(), "python='" + value + "' must be MODULE:FUNCTION"
                            + " (e.g. jacobi:sweep or kernels.heat:step)" + (meant == null ? "" : " (did you mean '" + meant + "'?)"));
                }
            }
            default -> {
                if (value.isEmpty()) {
                    context.error(kernel.location(), "empty command path");
                } else {
                    command = value;
                }
            }
        }
        boolean ok = className != null || python != null || command != null;
        List<IrExpr.Ref> inputs = new ArrayList<>();
        Attribute in = e.attribute("in");
        List<AttributeTyping.PlacedName> inNames = context.attrs().nameList(in);
        ok &= inNames != null;
        for (AttributeTyping.PlacedName placed : inNames == null ? List.<AttributeTyping.PlacedName>of() : inNames) {
            String name = placed.name();
            Scope.Symbol symbol = scope.lookup(name);
            if (symbol == null) {
                context.error(placed.at(), "unknown name '" + name + "' in 'in' of <compute>"
                        + Suggestions.didYouMean(name, scope.visibleNames()));
                ok = false;
            } else if (symbol.untyped()) {
                ok = false;
            } else {
                inputs.add(new IrExpr.Ref(name, symbol.kind(), symbol.type(), placed.at()));
            }
        }
        List<IrTarget> outputs = new ArrayList<>();
        Attribute out = e.attribute("out");
        List<AttributeTyping.PlacedName> outNames = context.attrs().nameList(out);
        ok &= outNames != null;
        Set<String> seen = new HashSet<>();
        for (AttributeTyping.PlacedName placed : outNames == null ? List.<AttributeTyping.PlacedName>of() : outNames) {
            String name = placed.name();
            SourceLocation at = placed.at();
            if (!seen.add(name)) {
                context.error(at, "'" + name + "' appears twice in 'out' of <compute>");
                ok = false;
                continue;
            }
            Scope.Symbol symbol = scope.lookup(name);
            if (symbol == null || symbol.kind() != IrExpr.RefKind.VAR) {
                context.error(at, symbol == null ? "unknown variable '" + name + "' in 'out' of <compute>"
                        + Suggestions.didYouMean(name, scope.visibleNames())
                        : "'" + name + "' in 'out' of <compute> is not a variable (params, loop variables and built-ins are read-only)");
                ok = false;
            } else if (symbol.untyped()) {
                ok = false;
            } else {
                outputs.add(new IrTarget(name, null, symbol.type(), at));
            }
        }
        return ok ? new IrActivity.Compute(className, inputs, outputs, e.location(), python, command) : null;
    }
}
