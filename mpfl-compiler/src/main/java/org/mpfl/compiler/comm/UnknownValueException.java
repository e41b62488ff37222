package org.mpfl.compiler.comm;

/**
 * Thrown by the symbolic environment when an expression reads a variable holding an {@link Unknown}
 * value; the evaluator lets it through, so the caller learns which name made the value unknown.
 */
final class UnknownValueException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String name;
    private final transient Unknown unknown;

    UnknownValueException(String name, Unknown unknown) {
        super(null, null, false, false); // control flow, not an error: no stack trace
        this.name = name;
        this.unknown = unknown;
    }

    /** The name the expression read. */
    String name() {
        return name;
    }

    Unknown unknown() {
        return unknown;
    }

    /** {@code 'x', received at f:3:5} or {@code 'y', which depends on 'x', received at …}. */
    String explain() {
        return unknown.explainRead(name);
    }
}
