package org.mpfl.compiler.check.activity;

import java.util.List;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.AttributeTyping;
import org.mpfl.compiler.check.typing.Names;
import org.mpfl.compiler.check.typing.ProcessContext;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.semantics.CollectiveAlgorithms;
import org.mpfl.ir.spelling.Suggestions;

/**
 * What the activity validators of one process share: its {@link ProcessContext}, the typed reading
 * of attributes, error reporting, the checking of nested bodies, and the attribute rules that more
 * than one element follows (requests, tags, sources, collective algorithms, created communicators).
 * Every method reports its own problems and returns null on error.
 */
public final class ActivityContext {

    /** Checks the activities among the children of an element: the dispatcher, so that validators can nest bodies. */
    @FunctionalInterface
    public interface BodyChecker {
        List<IrActivity> body(Element parent, Scope scope, Flow flow);
    }

    /** Stands for {@code any} in a source or tag attribute until the IR is built (where it becomes null). */
    private static final IrExpr ANY = new IrExpr.Const(MpflType.INT, -2, null);

    private final ProcessContext process;
    private final AttributeTyping attrs;
    private final BodyChecker bodies;

    public ActivityContext(ProcessContext process, AttributeTyping attrs, BodyChecker bodies) {
        this.process = process;
        this.attrs = attrs;
        this.bodies = bodies;
    }

    /** Typed reading of attribute values. */
    public AttributeTyping attrs() {
        return attrs;
    }

    /** The activities among the children of {@code parent}. */
    public List<IrActivity> body(Element parent, Scope scope, Flow flow) {
        return bodies.body(parent, scope, flow);
    }

    public void error(SourceLocation at, String message) {
        process.diagnostics().error(at, message);
    }

    public void warning(SourceLocation at, String message) {
        process.diagnostics().warning(at, message);
    }

    /** Reports whether {@code name} may be declared as a new name in {@code scope} (see {@link Names#checkNewName}). */
    public boolean checkNewName(SourceLocation at, String name, String what, Scope scope) {
        return Names.checkNewName(process.diagnostics(), at, name, what, scope);
    }

    /** Whether every part was read without error. */
    public static boolean allPresent(Object... parts) {
        for (Object part : parts) {
            if (part == null) {
                return false;
            }
        }
        return true;
    }

    /** A tag to send with: an int expression, 0 when absent. */
    public IrExpr tag(Element e, String attribute, Scope scope) {
        return e.attribute(attribute) == null ? new IrExpr.Const(MpflType.INT, 0, e.location())
                : attrs.expression(e, attribute, scope, MpflType.INT);
    }

    /** A tag to receive with: an int expression or {@code any} ({@link #anyAsNull}), 0 when absent. */
    public IrExpr tagOrAny(Element e, String attribute, Scope scope) {
        return e.attribute(attribute) == null ? new IrExpr.Const(MpflType.INT, 0, e.location())
                : sourceOrAny(e, attribute, scope);
    }

    /** A rank to receive from: an int expression or {@code any} ({@link #anyAsNull}). */
    public IrExpr sourceOrAny(Element e, String attribute, Scope scope) {
        if (AttributeTyping.isAny(e, attribute)) {
            return ANY;
        }
        Attribute a = e.attribute(attribute);
        String written = a == null ? "" : a.value().strip();
        if (written.equalsIgnoreCase("any") && scope.lookup(written) == null) {
            // 'ANY' as MPI spells MPI_ANY_SOURCE: an unknown name whose nearest spelling would be 'rank'
            error(a.positionInValue(a.value().indexOf(written)), "unknown name '" + written
                    + "': the wildcard is any, in lower case");
            return null;
        }
        return attrs.expression(e, attribute, scope, MpflType.INT);
    }

    /** What the IR holds for a value of {@link #sourceOrAny}: null for {@code any}. */
    public static IrExpr anyAsNull(IrExpr e) {
        return e == ANY ? null : e;
    }

    /** The request an {@code isend}/{@code irecv}/{@code wait} names; null if absent or malformed. */
    public String request(Element e) {
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

    /** Whether some {@code isend}/{@code irecv} of the process declares the request {@code name}. */
    public boolean knownRequest(String name, SourceLocation at) {
        if (!process.requests().contains(name)) {
            error(at, "unknown request '" + name + "' (requests are declared by <isend>/<irecv> request=\"...\")"
                    + Suggestions.didYouMean(name, process.requests()));
            return false;
        }
        return true;
    }

    /**
     * The collective algorithm, {@code auto} when absent. A name the element's operation lacks in the
     * table of {@link CollectiveAlgorithms} is an error (the runtime would fail on it), with the
     * nearest accepted name when one is close and the operations that do offer it when some do.
     */
    public String algorithm(Element e) {
        Attribute a = e.attribute("algorithm");
        if (a == null) {
            return CollectiveAlgorithms.AUTO;
        }
        String name = a.value().trim();
        if (!name.matches("[a-z][a-z0-9-]*")) {
            error(a.location(), "'" + name + "' is not an algorithm name (lower-case words joined by '-')");
            return null;
        }
        CollectiveAlgorithms operation = CollectiveAlgorithms.ofElement(e.name()).orElseThrow(
                () -> new IllegalStateException("<" + e.name() + "> is not in the table of collective algorithms"));
        if (!operation.accepts(name)) {
            List<String> elsewhere = CollectiveAlgorithms.offering(name).stream().map(o -> "<" + o.element() + ">").toList();
            error(a.location(), "<" + e.name() + "> has no algorithm '" + name + "'"
                    + Suggestions.didYouMean(name, operation.accepted())
                    + (elsewhere.isEmpty() ? "" : " (an algorithm of " + String.join(", ", elsewhere) + ")")
                    + "; it has " + String.join(", ", operation.accepted()));
            return null;
        }
        return name;
    }

    /** The communicator a {@code split}/{@code cartesian} creates; null if its name was rejected. */
    public String declaredCommunicator(Element e) {
        Attribute a = e.attribute("name");
        // names were validated (pattern, duplicates) when the process collected its communicators
        return a == null || !process.names().communicators().containsKey(a.value().trim()) ? null : a.value().trim();
    }
}
