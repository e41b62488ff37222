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
