package org.mpfl.engine.run;

/** An event whose domain does not match the run (a stray or forged event). */
public final class ForeignEventException extends Exception {
    private static final long serialVersionUID = 1L;

    public ForeignEventException(String message) {
        super(message);
    }
}
