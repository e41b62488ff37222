package org.mpfl.compiler.check.typing;

import java.util.HashMap;
import java.util.Map;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/**
 * Names visible to an expression: params, the built-in identifiers, process variables and loop
 * variables, nested (a loop body sees its loop variable, the loop's siblings do not).
 */
public final class Scope {
    /**
     * A declared name. Its {@code type} is {@code null} when the declaration's type is in error (reported there):
     * the name is still known, so its uses are not reported again as unknown; they are simply not typed.
     */
    public record Symbol(String name, IrExpr.RefKind kind, MpflType type, SourceLocation declaredAt) {
        /** Whether the declaration's type was in error: every use of the name is left untyped, silently. */
        public boolean untyped() {
            return type == null;
        }
    }

    /** Identifiers the language defines: they cannot be declared. */
    public static final Map<String, MpflType> BUILTIN_IDENTIFIERS = Map.of(
            "rank", MpflType.INT, "size", MpflType.INT, "prank", MpflType.INT, "psize", MpflType.INT);

    private final Scope parent;
    private final Map<String, Symbol> symbols = new HashMap<>();
    /** Names a process declares further down, while its variables' inits are typed: why each is not visible yet. */
    private final Map<String, String> notYetDeclared = new HashMap<>();

    private Scope(Scope parent) {
        this.parent = parent;
    }

    /** An empty scope: constant expressions (param defaults). */
    public static Scope empty() {
        return new Scope(null);
    }

    /** A nested scope. */
    public Scope child() {
        return new Scope(this);
    }

    /** Adds the built-in identifiers (process bodies). */
    public Scope withBuiltins() {
        BUILTIN_IDENTIFIERS.forEach((name, type) -> symbols.put(name, new Symbol(name, IrExpr.RefKind.BUILTIN, type, null)));
        return this;
    }

    public void declare(Symbol symbol) {
        symbols.put(symbol.name(), symbol);
        notYetDeclared.remove(symbol.name());
    }

    /**
     * Records that {@code name} is declared later in this scope, and why it is not visible before
     * ({@link #notYetDeclared(String)}); declaring it, or {@link #forgetNotYetDeclared()}, ends that.
     */
    public void declaredLater(String name, String why) {
        notYetDeclared.put(name, why);
    }

    /** Why {@code name}, unknown here, is not visible yet (it is declared further down), or null. */
    public String notYetDeclared(String name) {
        for (Scope s = this; s != null; s = s.parent) {
            String why = s.notYetDeclared.get(name);
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    /** Ends every {@link #declaredLater} record: names never declared (in error) are then plainly unknown. */
    public void forgetNotYetDeclared() {
        notYetDeclared.clear();
    }

    /** The symbol visible under {@code name}, or null. */
    public Symbol lookup(String name) {
        for (Scope s = this; s != null; s = s.parent) {
            Symbol symbol = s.symbols.get(name);
            if (symbol != null) {
                return symbol;
            }
        }
        return null;
    }

    /** Every name visible (for suggestions). */
    public java.util.Set<String> visibleNames() {
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (Scope s = this; s != null; s = s.parent) {
            names.addAll(s.symbols.keySet());
        }
        return names;
    }
}
