package org.mpfl.compiler.check;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.activity.ActivityChecker;
import org.mpfl.compiler.check.activity.Flow;
import org.mpfl.compiler.check.typing.AttributeTyping;
import org.mpfl.compiler.check.typing.ExpressionTyper;
import org.mpfl.compiler.check.typing.NameContext;
import org.mpfl.compiler.check.typing.Names;
import org.mpfl.compiler.check.typing.ProcessContext;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrParam;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrVariable;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.ConstantEnvironment;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.compiler.parse.ElementCatalog;
import org.mpfl.compiler.parse.ExpressionParser;
import org.mpfl.ir.spelling.Suggestions;

/**
 * Name resolution and static typing of a whole document (after {@link
 * org.mpfl.compiler.parse.StructureValidator}): the workflow header, params, processes and their
 * variables here, activities in {@link ActivityChecker}. Produces the typed {@link IrWorkflow};
 * every error is reported, and the IR is only meaningful when there is none.
 */
public final class WorkflowChecker {
    private final Diagnostics diagnostics;
    private final ExpressionParser expressions;

    public WorkflowChecker(Diagnostics diagnostics) {
        this.diagnostics = diagnostics;
        this.expressions = new ExpressionParser(diagnostics);
    }

    /**
     * Checks a document.
     *
     * @param root the {@code <workflow>} element
     * @param sourceFile the file name used in diagnostics
     * @param documentDirectory where {@code library} paths are resolved; null to skip the existence check
     */
    public IrWorkflow check(Element root, String sourceFile, Path documentDirectory) {
        String name = workflowName(root);
        String version = version(root);
        String description = null;
        List<String> libraries = new ArrayList<>();
        List<Element> paramElements = new ArrayList<>();
        List<Element> processElements = new ArrayList<>();
        for (Element child : root.children()) {
            switch (child.name()) {
                case "description" -> description = child.text().strip();
                case "library" -> library(child, documentDirectory, libraries);
                case "param" -> paramElements.add(child);
                case "process" -> processElements.add(child);
                default -> {
                }
            }
        }
        Scope paramScope = Scope.empty();
        List<IrParam> params = new ArrayList<>();
        for (Element p : paramElements) {
            IrParam param = param(p, paramScope);
            if (param != null) {
                params.add(param);
            }
        }
        Set<String> processNames = processNames(processElements, paramScope);
        List<IrProcess> processes = new ArrayList<>();
        for (Element p : processElements) {
            IrProcess process = process(p, paramScope, processNames);
            if (process != null) {
                processes.add(process);
            }
        }
        new KernelLibraryCheck(diagnostics, documentDirectory, libraries).check(processes);
        new ActivityClassCheck(diagnostics, documentDirectory, libraries).check(processes);
        return new IrWorkflow(name, version, description, sourceFile, libraries, params, processes, root.location(),
                restarts(root));
    }

    /** {@code restarts="N"}: a non-negative int literal (not an expression: the engine reads it before any param is known). */
    private Integer restarts(Element root) {
        Attribute a = root.attribute("restarts");
        if (a == null) {
            return null;
        }
        String text = a.value().trim();
        if (text.matches("[0-9]{1,9}")) {
            return Integer.parseInt(text);
        }
        diagnostics.error(a.location(), "restarts='" + a.value() + "' must be a non-negative int literal"
                + " (how many times a run may restart after an infrastructure fault)");
        return null;
    }

    private String workflowName(Element root) {
        Attribute a = root.attribute("name");
        if (a == null) {
            return "";
        }
        String name = a.value().trim();
        if (!Names.WORKFLOW_NAME.matcher(name).matches()) {
            diagnostics.error(a.location(), "workflow name '" + name + "' must match [A-Za-z][A-Za-z0-9_-]*");
        }
        return name;
    }

    private String version(Element root) {
        Attribute a = root.attribute("version");
        if (a == null) {
            return "1";
        }
        String version = a.value().trim();
        if (!version.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            diagnostics.error(a.location(), "version '" + version + "' must be letters, digits, '.', '_' or '-'");
        }
        return version;
    }

    private void library(Element e, Path documentDirectory, List<String> libraries) {
        Attribute a = e.attribute("path");
        if (a == null) {
            return;
        }
        String path = a.value().trim();
        if (path.isEmpty()) {
            diagnostics.error(a.location(), "empty library path");
            return;
        }
        boolean directory = documentDirectory != null && Files.isDirectory(documentDirectory.resolve(path));
        if (!directory && !path.endsWith(".jar") && !path.endsWith(".py") && !path.endsWith(".zip")) {
            diagnostics.warning(a.location(), "library '" + path + "' is not a .jar, a .py, a .zip or a directory");
        }
        if (documentDirectory != null && !directory && !Files.isRegularFile(documentDirectory.resolve(path))) {
            diagnostics.error(a.location(), "library not found: " + path + " (paths are relative to the document)");
        }
        if (libraries.contains(path)) {
            diagnostics.warning(a.location(), "library '" + path + "' is listed twice");
            return;
        }
        libraries.add(path);
    }

    private MpflType type(Attribute a) {
        if (a == null) {
            return null;
        }
        String written = a.value().trim();
        MpflType type = MpflType.fromSpelling(written);
        if (type == null) {
            List<String> spellings = java.util.Arrays.stream(MpflType.values()).map(MpflType::spelling).toList();
            String meant = otherLanguagesType(written);
            diagnostics.error(a.location(), "unknown type '" + written + "'"
                    + (meant != null ? " (did you mean '" + meant + "'?)" : Suggestions.didYouMean(written, spellings))
                    + " (types: " + String.join(", ", spellings) + ")");
        }
        return type;
    }

    /** The type names of other languages whose MPFL spelling is too far for an edit-distance guess ({@code integer}: {@code int}). */
    private static final Map<String, String> OTHER_LANGUAGES_TYPES = Map.of("integer", "int", "int32", "int", "int64", "long",
            "float", "double", "float64", "double", "real", "double", "bool", "boolean", "str", "string", "byte[]", "bytes");

    /** The MPFL type another language calls {@code written} ({@code float[]}: {@code double[]}), or {@code null}. */
    private static String otherLanguagesType(String written) {
        String lower = written.toLowerCase(java.util.Locale.ROOT);
        String meant = OTHER_LANGUAGES_TYPES.get(lower);
        if (meant == null && lower.endsWith("[]")) {
            String element = OTHER_LANGUAGES_TYPES.get(lower.substring(0, lower.length() - 2));
            meant = element == null || MpflType.fromSpelling(element + "[]") == null ? null : element + "[]";
        }
        return meant;
    }

    private IrParam param(Element e, Scope paramScope) {
        Attribute nameAttribute = e.attribute("name");
        MpflType type = type(e.attribute("type"));
        boolean ok = type != null;
        if (type != null && !type.isScalar()) {
            diagnostics.error(e.attribute("type").location(), "param type must be a scalar (int, long, double, boolean, string), found "
                    + type);
            ok = false;
        }
        String name = nameAttribute == null ? null : nameAttribute.value().trim();
        if (name != null && !Names.checkNewName(diagnostics, nameAttribute.location(), name, "param", paramScope)) {
            name = null;
        }
        IrExpr defaultValue = null;
        Attribute defaultAttribute = e.attribute("default");
        if (defaultAttribute != null) {
            // defaults are constants: no other params, no rank-dependent built-ins
            ExpressionTyper typer = new ExpressionTyper(diagnostics, Scope.empty(), NameContext.none(),
                    "a param default (a constant expression)");
            IrExpr typed = type == MpflType.STRING ? typer.typeText(expressions.parseText(defaultAttribute), defaultAttribute)
                    : typer.type(expressions.parse(defaultAttribute));
            if (typed != null && type != null && type.isScalar()) {
                defaultValue = ExpressionTyper.coerce(typed, type);
                if (defaultValue == null) {
                    diagnostics.error(ExpressionTyper.startOf(typed), "default of param '" + (name == null ? "?" : name) + "' must be " + type
                            + ", found " + typed.type());
                } else {
                    defaultValue = constant(defaultValue);
                }
            }
            // a default in error is reported above; the param stays declared (without it), so that a --param
            // naming it is not also reported as unknown
        }
        if (name != null) {
            // a param whose type is in error is declared untyped, as a variable is (its uses are not unknown names)
            paramScope.declare(new Scope.Symbol(name, IrExpr.RefKind.PARAM, type != null && type.isScalar() ? type : null, nameAttribute.location()));
        }
        return ok && name != null ? new IrParam(name, type, defaultValue, e.location()) : null;
    }

    /** Folds a constant expression to a {@link IrExpr.Const}, reporting faults such as 1/0. */
    private IrExpr constant(IrExpr expr) {
        try {
            Object value = ExpressionEvaluator.evaluate(expr, new ConstantEnvironment(Map.of()));
            return new IrExpr.Const(expr.type(), value, expr.at());
        } catch (RuntimeFault fault) {
            diagnostics.error(fault.location() == null ? expr.at() : fault.location(), fault.getMessage());
            return null;
        }
    }

    private Set<String> processNames(List<Element> processElements, Scope paramScope) {
        Set<String> names = new LinkedHashSet<>();
        Map<String, String> services = new LinkedHashMap<>();
        for (Element p : processElements) {
            Attribute a = p.attribute("name");
            if (a == null) {
                continue;
            }
            String name = a.value().trim();
            if (!Names.WORKFLOW_NAME.matcher(name).matches()) {
                diagnostics.error(a.location(), "process name '" + name + "' must match [A-Za-z][A-Za-z0-9_-]*");
            } else if (name.equals("world")) {
                diagnostics.error(a.location(), "'world' is the communicator of all ranks and cannot name a process");
            } else if (!names.add(name)) {
                diagnostics.error(a.location(), "duplicate process name '" + name + "'");
                continue;
            }
            Attribute service = p.attribute("service");
            String serviceType = service == null ? name : service.value().trim();
            SourceLocation serviceAt = service == null ? a.location() : service.location();
            if (service != null && !Names.WORKFLOW_NAME.matcher(serviceType).matches()) {
                diagnostics.error(serviceAt, "service type '" + serviceType + "' must match [A-Za-z][A-Za-z0-9_-]*");
            } else if (services.containsKey(serviceType)) {
                // one generated service runs one process's program
                diagnostics.error(serviceAt, "service type '" + serviceType + "' is already used by process '"
                        + services.get(serviceType) + "'; every process needs its own service type");
            } else {
                services.put(serviceType, name);
            }
        }
        return names;
    }

    private IrProcess process(Element e, Scope paramScope, Set<String> processNames) {
        Attribute nameAttribute = e.attribute("name");
        if (nameAttribute == null) {
            return null;
        }
        String name = nameAttribute.value().trim();
        Attribute serviceAttribute = e.attribute("service");
        String service = serviceAttribute == null ? name : serviceAttribute.value().trim();
        IrExpr ranks = ranks(e, paramScope);

        Map<String, SourceLocation> communicators = new LinkedHashMap<>();
        Set<String> cartesians = new LinkedHashSet<>();
        Set<String> requests = new LinkedHashSet<>();
        collectDeclarations(e, processNames, communicators, cartesians, requests);
        NameContext names = new NameContext(processNames, communicators, cartesians);
        ProcessContext context = new ProcessContext(name, diagnostics, expressions, names, requests);

        Scope scope = paramScope.child().withBuiltins();
        List<IrVariable> variables = new ArrayList<>();
        // variables are initialised before the first activity runs: the process's own split/cartesian
        // communicators do not exist yet, so their names are not visible to initialisers
        ProcessContext initContext = new ProcessContext(name, diagnostics, expressions,
                new NameContext(processNames, Map.of(), Set.of()), requests);
        AttributeTyping attrs = new AttributeTyping(initContext);
        // an init that names a variable declared further down is told so, not only that the name is unknown
        for (Element child : e.children()) {
            Attribute varName = child.name().equals("var") ? child.attribute("name") : null;
            if (varName != null && scope.lookup(varName.value().trim()) == null) {
                scope.declaredLater(varName.value().trim(), "the variable is declared after this one, at " + varName.location()
                        + " (an init may use only the variables declared before it)");
            }
        }
        for (Element child : e.children()) {
            if (child.name().equals("var")) {
                IrVariable variable = variable(child, scope, attrs);
                if (variable != null) {
                    variables.add(variable);
                }
            }
        }
        scope.forgetNotYetDeclared();
        List<IrActivity> body = new ActivityChecker(context).body(e, scope.child(), Flow.top());
        unwaitedRequests(e);
        return new IrProcess(name, service, ranks, variables, List.copyOf(communicators.keySet()),
                List.copyOf(requests), body, e.location());
    }

    private IrExpr ranks(Element e, Scope paramScope) {
        Attribute a = e.attribute("ranks");
        if (a == null) {
            return new IrExpr.Const(MpflType.INT, 1, e.location());
        }
        IrExpr typed = new ExpressionTyper(diagnostics, paramScope, NameContext.none(),
                "'ranks' (an expression over params)").type(expressions.parse(a));
        if (typed == null) {
            return null;
        }
        IrExpr converted = ExpressionTyper.coerce(typed, MpflType.INT);
        if (converted == null) {
            diagnostics.error(ExpressionTyper.startOf(typed), "'ranks' must be int, found " + typed.type());
            return null;
        }
        return converted;
    }

    private IrVariable variable(Element e, Scope scope, AttributeTyping attrs) {
        Attribute nameAttribute = e.attribute("name");
        MpflType type = type(e.attribute("type"));
        IrExpr init = null;
        boolean ok = type != null;
        if (e.attribute("init") != null) {
            if (nameAttribute != null && scope.notYetDeclared(nameAttribute.value().trim()) != null) {
                scope.declaredLater(nameAttribute.value().trim(), "an init cannot use the variable it initialises");
            }
            IrExpr typed = attrs.expression(e, "init", scope, type == MpflType.STRING);
            if (typed != null && type != null) {
                init = ExpressionTyper.coerce(typed, type);
                if (init == null) {
                    // named, as "cannot assign" names its target: several vars on one line otherwise differ only by column
                    String named = nameAttribute == null ? "" : " '" + nameAttribute.value().trim() + "'";
                    diagnostics.error(ExpressionTyper.startOf(typed), "cannot initialise " + type + " variable" + named + " with "
                            + typed.type() + ExpressionTyper.conversionHint(typed, type));
                }
            }
            ok &= init != null;
        }
        if (nameAttribute == null) {
            return null;
        }
        String name = nameAttribute.value().trim();
        if (!Names.checkNewName(diagnostics, nameAttribute.location(), name, "variable", scope)) {
            return null;
        }
        // declared also when its type is in error, so that its uses are not reported as unknown names
        scope.declare(new Scope.Symbol(name, IrExpr.RefKind.VAR, type, nameAttribute.location()));
        return ok ? new IrVariable(name, type, init, e.location()) : null;
    }

    /** Warns about isend/irecv requests that no wait/waitall of the process names: they would never complete. */
    private void unwaitedRequests(Element process) {
        Set<String> waited = new LinkedHashSet<>();
        List<Element> starts = new ArrayList<>();
        java.util.ArrayDeque<Element> pending = new java.util.ArrayDeque<>(process.children());
        while (!pending.isEmpty()) {
            Element e = pending.pop();
            pending.addAll(e.children());
            if (e.name().equals("wait") && e.attribute("request") != null) {
                waited.add(e.attribute("request").value().trim());
            } else if (e.name().equals("waitall") && e.attribute("requests") != null) {
                for (String name : e.attribute("requests").value().split(",")) {
                    waited.add(name.trim());
                }
            } else if ((e.name().equals("isend") || e.name().equals("irecv")) && e.attribute("request") != null) {
                starts.add(e);
            }
        }
        for (Element start : starts) {
            String name = start.attribute("request").value().trim();
            if (!waited.contains(name)) {
                diagnostics.warning(start.attribute("request").location(), "request '" + name
                        + "' is never waited for (<wait>/<waitall>): the operation may never complete"
                        + (start.name().equals("irecv") ? " and 'into' may never be written" : ""));
            }
        }
    }

    /** Communicators created by split/cartesian anywhere in the process, and requests of isend/irecv. */
    private void collectDeclarations(Element element, Set<String> processNames, Map<String, SourceLocation> communicators,
            Set<String> cartesians, Set<String> requests) {
        for (Element child : element.children()) {
            if (!child.namespace().equals(ElementCatalog.NAMESPACE) && !child.namespace().isEmpty()) {
                continue;
            }
            if (child.name().equals("split") || child.name().equals("cartesian")) {
                Attribute a = child.attribute("name");
                if (a != null) {
                    String name = a.value().trim();
                    if (!Names.IDENTIFIER.matcher(name).matches()) {
                        diagnostics.error(a.location(), "'" + name + "' is not a valid communicator name (" + Names.IDENTIFIER_RULE + ")");
                    } else if (name.equals("world") || processNames.contains(name)) {
                        diagnostics.error(a.location(), "communicator '" + name + "' already exists ("
                                + (name.equals("world") ? "all ranks" : "the ranks of process " + name) + ")");
                    } else if (communicators.containsKey(name)) {
                        diagnostics.error(a.location(), "communicator '" + name + "' is already created at " + communicators.get(name));
                    } else {
                        communicators.put(name, a.location());
                        if (child.name().equals("cartesian")) {
                            cartesians.add(name);
                        }
                    }
                }
            }
            if ((child.name().equals("isend") || child.name().equals("irecv")) && child.attribute("request") != null) {
                requests.add(child.attribute("request").value().trim());
            }
            collectDeclarations(child, processNames, communicators, cartesians, requests);
        }
    }
}
