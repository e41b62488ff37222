package org.mpfl.compiler.check;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.diag.SourceLocation;
import org.mpfl.compiler.ir.IrActivity;
import org.mpfl.compiler.ir.IrActivity.ReduceOp;
import org.mpfl.compiler.ir.IrExpr;
import org.mpfl.compiler.ir.IrTarget;
import org.mpfl.compiler.ir.MpflType;
import org.mpfl.compiler.parse.ElementCatalog;
import org.mpfl.compiler.parse.Suggestions;

/**
 * The validators of the activity elements, one method per element (the habit of Zeebe's model
 * validators): each reads its element's attributes, reports every problem it finds, and returns
 * the typed IR activity — or null if something was wrong, in which case its siblings are still
 * checked.
 */
final class ActivityChecker {
    /** Collective algorithms the runtime is known to offer; others draw a warning, not an error (the runtime may add more). */
    static final Set<String> KNOWN_ALGORITHMS = CollectiveAlgorithmNames.KNOWN;

    /** Where the activity sits: inside how many loops, and whether a parallel branch lies in between. */
    record Flow(int loopDepth, boolean inBranch) {
        Flow inLoop() {
            return new Flow(loopDepth + 1, inBranch);
        }

        static Flow top() {
            return new Flow(0, false);
        }
    }

    private interface Validator {
        IrActivity check(ActivityChecker checker, Element element, Scope scope, Flow flow);
    }

    private static final Map<String, Validator> VALIDATORS = Map.ofEntries(
            Map.entry("assign", ActivityChecker::assign),
            Map.entry("if", ActivityChecker::ifElement),
            Map.entry("while", ActivityChecker::whileElement),
            Map.entry("for", ActivityChecker::forElement),
            Map.entry("break", ActivityChecker::breakElement),
            Map.entry("sequence", (c, e, s, f) -> new IrActivity.Sequence(c.body(e, s, f), e.location())),
            Map.entry("parallel", ActivityChecker::parallel),
            Map.entry("compute", ActivityChecker::compute),
            Map.entry("invoke", ActivityChecker::invoke),
            Map.entry("send", ActivityChecker::send),
            Map.entry("isend", ActivityChecker::send),
            Map.entry("receive", ActivityChecker::receive),
            Map.entry("irecv", ActivityChecker::receive),
            Map.entry("sendrecv", ActivityChecker::sendrecv),
            Map.entry("wait", ActivityChecker::waitElement),
            Map.entry("waitall", ActivityChecker::waitall),
            Map.entry("barrier", ActivityChecker::barrier),
            Map.entry("broadcast", ActivityChecker::broadcast),
            Map.entry("scatter", ActivityChecker::scatterOrAlltoall),
            Map.entry("alltoall", ActivityChecker::scatterOrAlltoall),
            Map.entry("gather", ActivityChecker::gather),
            Map.entry("allgather", ActivityChecker::gather),
            Map.entry("reduce", ActivityChecker::reduction),
            Map.entry("allreduce", ActivityChecker::reduction),
            Map.entry("scan", ActivityChecker::reduction),
            Map.entry("split", ActivityChecker::split),
            Map.entry("cartesian", ActivityChecker::cartesian),
            Map.entry("output", ActivityChecker::output),
            Map.entry("log", ActivityChecker::log),
            Map.entry("progress", ActivityChecker::progress),
            Map.entry("fail", (c, e, s, f) -> {
                IrExpr message = c.attrs.text(e, "message", s);
                return message == null ? null : new IrActivity.Fail(message, e.location());
            }));

    private final ProcessContext context;
    private final AttributeTyping attrs;

    ActivityChecker(ProcessContext context) {
        this.context = context;
        this.attrs = new AttributeTyping(context);
    }

    /** The activities among the children of {@code parent} (other children are handled by their parent's validator). */
    List<IrActivity> body(Element parent, Scope scope, Flow flow) {
        List<IrActivity> activities = new ArrayList<>();
        String endedBy = null;
        for (Element child : parent.children()) {
            if (!child.namespace().equals(ElementCatalog.NAMESPACE) && !child.namespace().isEmpty()) {
                continue;
            }
            Validator validator = VALIDATORS.get(child.name());
            if (validator == null) {
                continue; // structure validation reported it, or the parent reads it (elseif, else, branch)
            }
            if (endedBy != null) {
                context.diagnostics().warning(child.location(), "<" + child.name() + "> is never reached: it follows <"
                        + endedBy + "> in the same block");
                endedBy = null; // one warning per block is enough
            }
            if (child.name().equals("fail") || (child.name().equals("break") && flow.loopDepth() > 0)) {
                endedBy = child.name();
            }
            IrActivity activity = validator.check(this, child, scope, flow);
            if (activity != null) {
                activities.add(activity);
            }
        }
        return activities;
    }

    private void error(SourceLocation at, String message) {
        context.diagnostics().error(at, message);
    }

    private static boolean allPresent(Object... parts) {
        for (Object part : parts) {
            if (part == null) {
                return false;
            }
        }
        return true;
    }

    // ---- control flow -------------------------------------------------------------------

    private IrActivity assign(Element e, Scope scope, Flow flow) {
        IrTarget target = attrs.target(e, "to", scope);
        IrExpr value = attrs.expression(e, "value", scope);
        if (target == null || value == null) {
            return null;
        }
        IrExpr converted = ExpressionTyper.coerce(value, target.type());
        if (converted == null) {
            error(ExpressionTyper.startOf(value), "cannot assign " + value.type() + " to " + describe(target)
                    + (target.type().isIntegral() && value.type().isNumeric() ? " (narrow explicitly with " + target.type() + "(...))" : ""));
            return null;
        }
        return new IrActivity.Assign(target, converted, e.location());
    }

    private static String describe(IrTarget target) {
        return target.index() == null ? target.type() + " variable '" + target.variable() + "'"
                : "an element of '" + target.variable() + "' (" + target.type() + ")";
    }

    private IrActivity ifElement(Element e, Scope scope, Flow flow) {
        List<IrActivity.Arm> arms = new ArrayList<>();
        IrExpr test = attrs.expression(e, "test", scope, MpflType.BOOLEAN);
        List<IrActivity> then = body(e, scope.child(), flow);
        arms.add(new IrActivity.Arm(test, then, e.location()));
        List<IrActivity> otherwise = List.of();
        boolean ok = test != null;
        for (Element child : e.children()) {
            if (child.name().equals("elseif")) {
                IrExpr elseifTest = attrs.expression(child, "test", scope, MpflType.BOOLEAN);
                arms.add(new IrActivity.Arm(elseifTest, body(child, scope.child(), flow), child.location()));
                ok &= elseifTest != null;
            } else if (child.name().equals("else")) {
                otherwise = body(child, scope.child(), flow);
            }
        }
        return ok ? new IrActivity.If(arms, otherwise, e.location()) : null;
    }

    private IrActivity whileElement(Element e, Scope scope, Flow flow) {
        IrExpr test = attrs.expression(e, "test", scope, MpflType.BOOLEAN);
        List<IrActivity> body = body(e, scope.child(), flow.inLoop());
        if (test instanceof IrExpr.Const c && Boolean.TRUE.equals(c.value()) && !containsBreak(body)) {
            context.diagnostics().warning(e.location(), "<while test=\"true\"> without <break> never ends");
        }
        return test == null ? null : new IrActivity.While(test, body, e.location());
    }

    private static boolean containsBreak(List<IrActivity> body) {
        for (IrActivity a : body) {
            if (a instanceof IrActivity.Break) {
                return true;
            } else if (a instanceof IrActivity.Sequence s && containsBreak(s.body())) {
                return true;
            } else if (a instanceof IrActivity.If i
                    && (containsBreak(i.otherwise()) || i.arms().stream().anyMatch(arm -> containsBreak(arm.body())))) {
                return true;
            }
        }
        return false;
    }

    private IrActivity forElement(Element e, Scope scope, Flow flow) {
        Attribute varAttribute = e.attribute("var");
        IrExpr from = attrs.expression(e, "from", scope, MpflType.INT);
        IrExpr to = attrs.expression(e, "to", scope, MpflType.INT);
        IrExpr step = e.attribute("step") == null ? new IrExpr.Const(MpflType.INT, 1, e.location())
                : attrs.expression(e, "step", scope, MpflType.INT);
        if (step instanceof IrExpr.Const c && Integer.valueOf(0).equals(c.value())) {
            error(step.at(), "the step of <for> must not be 0");
            step = null;
        }
        Scope bodyScope = scope.child();
        String variable = null;
        if (varAttribute != null) {
            variable = varAttribute.value().trim();
            if (WorkflowChecker.checkNewName(context.diagnostics(), varAttribute.location(), variable, "loop variable", scope)) {
                bodyScope.declare(new Scope.Symbol(variable, IrExpr.RefKind.LOOP, MpflType.INT, varAttribute.location()));
            } else {
                variable = null;
            }
        }
        List<IrActivity> body = body(e, bodyScope, flow.inLoop());
        return allPresent(variable, from, to, step) ? new IrActivity.For(variable, from, to, step, body, e.location()) : null;
    }

    private IrActivity breakElement(Element e, Scope scope, Flow flow) {
        if (flow.loopDepth() == 0) {
            error(e.location(), flow.inBranch() ? "<break> cannot leave a <parallel> branch"
                    : "<break> outside a <while> or <for>");
            return null;
        }
        return new IrActivity.Break(e.location());
    }

    private IrActivity parallel(Element e, Scope scope, Flow flow) {
        List<List<IrActivity>> branches = new ArrayList<>();
        for (Element child : e.children()) {
            if (child.name().equals("branch")) {
                branches.add(body(child, scope.child(), new Flow(0, true)));
            }
        }
        return new IrActivity.Parallel(branches, e.location());
    }

    // ---- work -----------------------------------------------------------------------------

    private IrActivity compute(Element e, Scope scope, Flow flow) {
        Attribute classAttribute = e.attribute("class");
        String className = classAttribute == null ? null : classAttribute.value().trim();
        if (className != null && !Names.CLASS_NAME.matcher(className).matches()) {
            error(classAttribute.location(), "'" + className + "' is not a Java class name");
            className = null;
        }
        boolean ok = className != null;
        List<IrExpr.Ref> inputs = new ArrayList<>();
        Attribute in = e.attribute("in");
        List<AttributeTyping.PlacedName> inNames = attrs.nameList(in);
        ok &= inNames != null;
        for (AttributeTyping.PlacedName placed : inNames == null ? List.<AttributeTyping.PlacedName>of() : inNames) {
            String name = placed.name();
            Scope.Symbol symbol = scope.lookup(name);
            if (symbol == null) {
                error(placed.at(), "unknown name '" + name + "' in 'in' of <compute>"
                        + Suggestions.didYouMean(name, scope.visibleNames()));
                ok = false;
            } else {
                inputs.add(new IrExpr.Ref(name, symbol.kind(), symbol.type(), placed.at()));
            }
        }
        List<IrTarget> outputs = new ArrayList<>();
        Attribute out = e.attribute("out");
        List<AttributeTyping.PlacedName> outNames = attrs.nameList(out);
        ok &= outNames != null;
        Set<String> seen = new HashSet<>();
        for (AttributeTyping.PlacedName placed : outNames == null ? List.<AttributeTyping.PlacedName>of() : outNames) {
            String name = placed.name();
            SourceLocation at = placed.at();
            if (!seen.add(name)) {
                error(at, "'" + name + "' appears twice in 'out' of <compute>");
                ok = false;
                continue;
            }
            Scope.Symbol symbol = scope.lookup(name);
            if (symbol == null || symbol.kind() != IrExpr.RefKind.VAR) {
                error(at, symbol == null ? "unknown variable '" + name + "' in 'out' of <compute>"
                        + Suggestions.didYouMean(name, scope.visibleNames())
                        : "'" + name + "' in 'out' of <compute> is not a variable (params, loop variables and built-ins are read-only)");
                ok = false;
            } else {
                outputs.add(new IrTarget(name, null, symbol.type(), at));
            }
        }
        return ok ? new IrActivity.Compute(className, inputs, outputs, e.location()) : null;
    }

    private IrActivity invoke(Element e, Scope scope, Flow flow) {
        IrExpr endpoint = attrs.expression(e, "endpoint", scope, MpflType.STRING);
        Attribute operationAttribute = e.attribute("operation");
        String operation = operationAttribute == null ? null : operationAttribute.value().trim();
        if (operation != null && !Names.IDENTIFIER.matcher(operation).matches()) {
            error(operationAttribute.location(), "'" + operation + "' is not an operation name");
            operation = null;
        }
        IrExpr input = e.attribute("input") == null ? null : attrs.expression(e, "input", scope, MpflType.STRING);
        IrTarget output = e.attribute("output") == null ? null : attrs.target(e, "output", scope);
        boolean ok = endpoint != null && operation != null
                && (e.attribute("input") == null || input != null) && (e.attribute("output") == null || output != null);
        if (output != null && output.type() != MpflType.STRING) {
            error(output.at(), "'output' of <invoke> must be a string variable, found " + output.type());
            ok = false;
        }
        return ok ? new IrActivity.Invoke(endpoint, operation, input, output, e.location()) : null;
    }

    // ---- point-to-point -------------------------------------------------------------------

    private IrExpr tag(Element e, String attribute, Scope scope) {
        return e.attribute(attribute) == null ? new IrExpr.Const(MpflType.INT, 0, e.location())
                : attrs.expression(e, attribute, scope, MpflType.INT);
    }

    private IrActivity.SendMode mode(Element e) {
        Attribute a = e.attribute("mode");
        if (a == null) {
            return IrActivity.SendMode.STANDARD;
        }
        IrActivity.SendMode mode = IrActivity.SendMode.of(a.value().trim());
        if (mode == null) {
            error(a.location(), "mode of <" + e.name() + "> must be 'standard' or 'synchronous', found '" + a.value() + "'");
        }
        return mode;
    }

    private String request(Element e) {
        Attribute a = e.attribute("request");
        if (a == null) {
            return null;
        }
        String name = a.value().trim();
        if (!Names.IDENTIFIER.matcher(name).matches()) {
            error(a.location(), "'" + name + "' is not a request name");
            return null;
        }
        return name;
    }

    private IrActivity send(Element e, Scope scope, Flow flow) {
        IrExpr to = attrs.expression(e, "to", scope, MpflType.INT);
        IrExpr data = attrs.expression(e, "data", scope);
        IrExpr tag = tag(e, "tag", scope);
        String comm = attrs.communicator(e, "comm");
        IrActivity.SendMode mode = mode(e);
        if (e.name().equals("isend")) {
            String request = request(e);
            return allPresent(to, data, tag, comm, mode, request)
                    ? new IrActivity.ISend(to, data, tag, comm, mode, request, e.location()) : null;
        }
        return allPresent(to, data, tag, comm, mode) ? new IrActivity.Send(to, data, tag, comm, mode, e.location()) : null;
    }

    /** {@code from}: an int expression or {@code any}; returns a marker for "any". */
    private static final IrExpr ANY = new IrExpr.Const(MpflType.INT, -2, null);

    private IrExpr sourceOrAny(Element e, String attribute, Scope scope) {
        if (AttributeTyping.isAny(e, attribute)) {
            return ANY;
        }
        return attrs.expression(e, attribute, scope, MpflType.INT);
    }

    private static IrExpr anyAsNull(IrExpr e) {
        return e == ANY ? null : e;
    }

    private IrTarget intTarget(Element e, String attribute, Scope scope) {
        if (e.attribute(attribute) == null) {
            return null;
        }
        IrTarget target = attrs.target(e, attribute, scope);
        if (target != null && target.type() != MpflType.INT) {
            error(target.at(), "'" + attribute + "' of <" + e.name() + "> must be an int variable, found " + target.type());
            return null;
        }
        return target;
    }

    private IrActivity receive(Element e, Scope scope, Flow flow) {
        IrExpr from = sourceOrAny(e, "from", scope);
        IrTarget into = attrs.target(e, "into", scope);
        IrExpr tag = e.attribute("tag") == null ? new IrExpr.Const(MpflType.INT, 0, e.location()) : sourceOrAny(e, "tag", scope);
        String comm = attrs.communicator(e, "comm");
        IrTarget source = intTarget(e, "source", scope);
        IrTarget gottag = intTarget(e, "gottag", scope);
        boolean optionalOk = (e.attribute("source") == null || source != null) && (e.attribute("gottag") == null || gottag != null);
        if (e.name().equals("irecv")) {
            String request = request(e);
            return allPresent(from, into, tag, comm, request) && optionalOk
                    ? new IrActivity.IRecv(anyAsNull(from), into, anyAsNull(tag), comm, source, gottag, request, e.location()) : null;
        }
        IrExpr timeout = null;
        if (e.attribute("timeout") != null) {
            IrExpr typed = attrs.expression(e, "timeout", scope);
            if (typed != null && !typed.type().isIntegral()) {
                error(ExpressionTyper.startOf(typed), "'timeout' of <receive> must be int or long (milliseconds), found " + typed.type());
            } else {
                timeout = ExpressionTyper.coerce(typed, MpflType.LONG);
            }
            optionalOk &= timeout != null;
        }
        return allPresent(from, into, tag, comm) && optionalOk
                ? new IrActivity.Receive(anyAsNull(from), into, anyAsNull(tag), comm, source, gottag, timeout, e.location()) : null;
    }

    private IrActivity sendrecv(Element e, Scope scope, Flow flow) {
        IrExpr to = attrs.expression(e, "to", scope, MpflType.INT);
        IrExpr data = attrs.expression(e, "data", scope);
        IrExpr sendTag = tag(e, "sendtag", scope);
        IrExpr from = sourceOrAny(e, "from", scope);
        IrTarget into = attrs.target(e, "into", scope);
        IrExpr recvTag = e.attribute("recvtag") == null ? new IrExpr.Const(MpflType.INT, 0, e.location())
                : sourceOrAny(e, "recvtag", scope);
        String comm = attrs.communicator(e, "comm");
        return allPresent(to, data, sendTag, from, into, recvTag, comm)
                ? new IrActivity.SendRecv(to, data, sendTag, anyAsNull(from), into, anyAsNull(recvTag), comm, e.location()) : null;
    }

    private boolean knownRequest(String name, SourceLocation at) {
        if (!context.requests().contains(name)) {
            error(at, "unknown request '" + name + "' (requests are declared by <isend>/<irecv> request=\"...\")"
                    + Suggestions.didYouMean(name, context.requests()));
            return false;
        }
        return true;
    }

    private IrActivity waitElement(Element e, Scope scope, Flow flow) {
        String request = request(e);
        return request != null && knownRequest(request, e.attribute("request").location())
                ? new IrActivity.Wait(request, e.location()) : null;
    }

    private IrActivity waitall(Element e, Scope scope, Flow flow) {
        Attribute a = e.attribute("requests");
        List<AttributeTyping.PlacedName> names = attrs.nameList(a);
        if (names == null) {
            return null;
        }
        if (names.isEmpty()) {
            error(a.location(), "<waitall> needs at least one request");
            return null;
        }
        boolean ok = true;
        for (AttributeTyping.PlacedName placed : names) {
            ok &= knownRequest(placed.name(), placed.at());
        }
        return ok ? new IrActivity.WaitAll(names.stream().map(AttributeTyping.PlacedName::name).toList(), e.location()) : null;
    }

    // ---- collectives ----------------------------------------------------------------------

    private String algorithm(Element e) {
        Attribute a = e.attribute("algorithm");
        if (a == null) {
            return "auto";
        }
        String name = a.value().trim();
        if (!name.matches("[a-z][a-z0-9-]*")) {
            error(a.location(), "'" + name + "' is not an algorithm name (lower-case words joined by '-')");
            return null;
        }
        if (!KNOWN_ALGORITHMS.contains(name)) {
            context.diagnostics().warning(a.location(), "algorithm '" + name + "' is not one the runtime is known to offer"
                    + Suggestions.didYouMean(name, KNOWN_ALGORITHMS) + "; the run fails if the runtime lacks it");
        }
        return name;
    }

    private IrActivity barrier(Element e, Scope scope, Flow flow) {
        String comm = attrs.communicator(e, "comm");
        String algorithm = algorithm(e);
        return allPresent(comm, algorithm) ? new IrActivity.Barrier(comm, algorithm, e.location()) : null;
    }

    private IrActivity broadcast(Element e, Scope scope, Flow flow) {
        IrExpr root = attrs.expression(e, "root", scope, MpflType.INT);
        IrTarget variable = attrs.variable(e, "var", scope);
        String comm = attrs.communicator(e, "comm");
        String algorithm = algorithm(e);
        return allPresent(root, variable, comm, algorithm)
                ? new IrActivity.Broadcast(root, variable, comm, algorithm, e.location()) : null;
    }

    /** scatter and alltoall: an array (or bytes) in, the same type out. */
    private IrActivity scatterOrAlltoall(Element e, Scope scope, Flow flow) {
        boolean scatter = e.name().equals("scatter");
        IrExpr root = scatter ? attrs.expression(e, "root", scope, MpflType.INT) : null;
        IrExpr data = attrs.expression(e, "data", scope);
        IrTarget into = attrs.target(e, "into", scope);
        String comm = attrs.communicator(e, "comm");
        String algorithm = algorithm(e);
        boolean ok = allPresent(data, into, comm, algorithm) && (!scatter || root != null);
        if (data != null && data.type().elementType() == null) {
            error(data.at(), "'data' of <" + e.name() + "> must be an array or bytes, found " + data.type());
            ok = false;
        } else if (data != null && into != null && into.type() != data.type()) {
            error(into.at(), "'into' of <" + e.name() + "> must be " + data.type() + " like 'data', found " + into.type());
            ok = false;
        }
        if (!ok) {
            return null;
        }
        return scatter ? new IrActivity.Scatter(root, data, into, comm, algorithm, e.location())
                : new IrActivity.Alltoall(data, into, comm, algorithm, e.location());
    }

    /** What gather/allgather produce from {@code data}: T → T[], T[] → T[] (concatenation), anything else → object. */
    static MpflType gatherResult(MpflType data) {
        if (data.isNumeric()) {
            return data.arrayType();
        }
        if (data.isNumericArray()) {
            return data;
        }
        return MpflType.OBJECT;
    }

    private IrActivity gather(Element e, Scope scope, Flow flow) {
        boolean rooted = e.name().equals("gather");
        IrExpr root = rooted ? attrs.expression(e, "root", scope, MpflType.INT) : null;
        IrExpr data = attrs.expression(e, "data", scope);
        IrTarget into = attrs.target(e, "into", scope);
        String comm = attrs.communicator(e, "comm");
        String algorithm = algorithm(e);
        boolean ok = allPresent(data, into, comm, algorithm) && (!rooted || root != null);
        if (data != null && into != null) {
            MpflType result = gatherResult(data.type());
            if (into.type() != result && into.type() != MpflType.OBJECT) {
                error(into.at(), "'into' of <" + e.name() + "> must be " + result + " (gathering " + data.type() + "), found "
                        + into.type());
                ok = false;
            }
        }
        if (!ok) {
            return null;
        }
        return rooted ? new IrActivity.Gather(root, data, into, comm, algorithm, e.location())
                : new IrActivity.Allgather(data, into, comm, algorithm, e.location());
    }

    private ReduceOp reduceOp(Element e, IrExpr data) {
        Attribute a = e.attribute("op");
        if (a == null) {
            return null;
        }
        ReduceOp op = ReduceOp.of(a.value().trim());
        if (op == null) {
            error(a.location(), "unknown reduction op '" + a.value().trim() + "' (sum prod min max land lor band bor)"
                    + Suggestions.didYouMean(a.value().trim(), List.of("sum", "prod", "min", "max", "land", "lor", "band", "bor")));
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
            error(a.location(), "op '" + op.spelling() + "' works on " + needs + ", 'data' is " + t);
            return null;
        }
        return op;
    }

    private IrActivity reduction(Element e, Scope scope, Flow flow) {
        boolean rooted = e.name().equals("reduce");
        IrExpr root = rooted ? attrs.expression(e, "root", scope, MpflType.INT) : null;
        IrExpr data = attrs.expression(e, "data", scope);
        ReduceOp op = reduceOp(e, data);
        IrTarget into = attrs.target(e, "into", scope);
        String comm = attrs.communicator(e, "comm");
        String algorithm = algorithm(e);
        boolean ok = allPresent(data, op, into, comm, algorithm) && (!rooted || root != null);
        if (data != null && into != null && !into.type().accepts(data.type())) {
            error(into.at(), "'into' of <" + e.name() + "> must hold " + data.type() + " like 'data', found " + into.type());
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

    // ---- communicators --------------------------------------------------------------------

    private String declaredCommunicator(Element e) {
        Attribute a = e.attribute("name");
        // names were validated (pattern, duplicates) when the process collected its communicators
        return a == null || !context.names().communicators().containsKey(a.value().trim()) ? null : a.value().trim();
    }

    private IrActivity split(Element e, Scope scope, Flow flow) {
        String name = declaredCommunicator(e);
        String comm = attrs.communicator(e, "comm");
        IrExpr color = attrs.expression(e, "color", scope, MpflType.INT);
        IrExpr key = e.attribute("key") == null ? null : attrs.expression(e, "key", scope, MpflType.INT);
        return allPresent(name, comm, color) && (e.attribute("key") == null || key != null)
                ? new IrActivity.Split(name, comm, color, key, e.location()) : null;
    }

    private IrActivity cartesian(Element e, Scope scope, Flow flow) {
        String name = declaredCommunicator(e);
        String comm = attrs.communicator(e, "comm");
        List<IrExpr> dims = attrs.expressionList(e, "dims", scope);
        boolean ok = allPresent(name, comm, dims);
        int dimensions = -1;
        if (dims != null) {
            if (dims.size() == 1 && dims.get(0).type() == MpflType.INT_ARRAY) {
                dimensions = -1; // known at run time only
            } else {
                dimensions = dims.size();
                for (int i = 0; i < dims.size(); i++) {
                    IrExpr converted = attrs.expect(dims.get(i), MpflType.INT, "each entry of 'dims' of <cartesian>");
                    ok &= converted != null;
                    dims.set(i, converted);
                }
            }
        }
        List<IrExpr> periodic = List.of(new IrExpr.Const(MpflType.BOOLEAN, false, e.location()));
        if (e.attribute("periodic") != null) {
            periodic = attrs.expressionList(e, "periodic", scope);
            if (periodic == null) {
                ok = false;
            } else {
                for (int i = 0; i < periodic.size(); i++) {
                    IrExpr converted = attrs.expect(periodic.get(i), MpflType.BOOLEAN, "each entry of 'periodic' of <cartesian>");
                    ok &= converted != null;
                    periodic.set(i, converted);
                }
                if (ok && dimensions > 0 && periodic.size() != 1 && periodic.size() != dimensions) {
                    error(e.attribute("periodic").location(), "'periodic' has " + periodic.size() + " entries for "
                            + dimensions + " dimensions (give one per dimension, or one for all)");
                    ok = false;
                }
            }
        }
        return ok ? new IrActivity.Cartesian(name, comm, dims, periodic, e.location()) : null;
    }

    // ---- results and monitoring -----------------------------------------------------------

    private IrActivity output(Element e, Scope scope, Flow flow) {
        Attribute nameAttribute = e.attribute("name");
        String name = nameAttribute == null ? null : nameAttribute.value().trim();
        if (name != null && !Names.OUTPUT_NAME.matcher(name).matches()) {
            error(nameAttribute.location(), "'" + name + "' is not an output name");
            name = null;
        }
        IrExpr value = attrs.expression(e, "value", scope);
        return allPresent(name, value) ? new IrActivity.Output(name, value, e.location()) : null;
    }

    private IrActivity log(Element e, Scope scope, Flow flow) {
        IrActivity.LogLevel level = IrActivity.LogLevel.INFO;
        Attribute a = e.attribute("level");
        if (a != null) {
            level = IrActivity.LogLevel.of(a.value().trim());
            if (level == null) {
                error(a.location(), "log level must be info, warn or error, found '" + a.value() + "'");
            }
        }
        IrExpr message = attrs.text(e, "message", scope);
        return allPresent(level, message) ? new IrActivity.Log(level, message, e.location()) : null;
    }

    private IrActivity progress(Element e, Scope scope, Flow flow) {
        IrExpr value = attrs.expression(e, "value", scope, MpflType.DOUBLE);
        IrExpr total = e.attribute("total") == null ? new IrExpr.Const(MpflType.DOUBLE, 100.0, e.location())
                : attrs.expression(e, "total", scope, MpflType.DOUBLE);
        return allPresent(value, total) ? new IrActivity.Progress(value, total, e.location()) : null;
    }
}
