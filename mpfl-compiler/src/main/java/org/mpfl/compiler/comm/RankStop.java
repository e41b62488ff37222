package org.mpfl.compiler.comm;

import org.mpfl.ir.diag.SourceLocation;

/**
 * Ends the analysis of one rank: either something its communication depends on is not known
 * before the run ({@link Reason#UNDECIDED}), or the rank would fail there with these param values
 * ({@link Reason#FAULT}, {@link Reason#CERTAIN_FAULT}). Reported as a warning, or as an error for a
 * certain fault; ranks waiting for a stopped rank are not reported as blocked, because the stopped
 * rank might still serve them at run time (or the run ends there anyway).
 */
final class RankStop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * UNDECIDED and FAULT are reported as warnings; CERTAIN_FAULT, a fault the document's
     * communication structure fixes (a rank outside its communicator), as an error; ERROR follows an
     * error already reported (a collective mismatch).
     */
    enum Reason { UNDECIDED, FAULT, CERTAIN_FAULT, ERROR }

    private final Reason reason;
    private final transient SourceLocation at;

    RankStop(Reason reason, SourceLocation at, String message) {
        super(message, null, false, false);
        this.reason = reason;
        this.at = at;
    }

    static RankStop undecided(SourceLocation at, String message) {
        return new RankStop(Reason.UNDECIDED, at, message);
    }

    static RankStop fault(SourceLocation at, String message) {
        return new RankStop(Reason.FAULT, at, message);
    }

    static RankStop certainFault(SourceLocation at, String message) {
        return new RankStop(Reason.CERTAIN_FAULT, at, message);
    }

    Reason reason() {
        return reason;
    }

    SourceLocation at() {
        return at;
    }
}
