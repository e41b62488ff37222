package org.mpfl.compiler.comm;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.ir.diag.SourceLocation;

/**
 * The types across a match: a message must have the static type of the receive's {@code into}, or
 * be a numeric scalar that widens to it ({@code object} takes anything), as the receive typing of the
 * language reference decides; otherwise the run fails at the receive, so a match the check follows
 * with types that cannot fit is an error at the receive with a note at the send, once per pair of
 * places. Data of type {@code object} may hold any value and is never reported. Only matches the
 * run makes as well count: a receive from a named rank, before any receive from any rank matched
 * (after that, the check follows one of several possible orders).
 */
final class MessageTyping {
    private final CommunicationReporter reporter;
    private final Set<List<SourceLocation>> reported = new HashSet<>();

    MessageTyping(CommunicationReporter reporter) {
        this.reporter = reporter;
    }

    /** {@code message} matched {@code receive}; {@code orderCertain} is false once a wildcard receive matched. */
    void matched(Request message, Request receive, boolean orderCertain) {
        IrExpr data = sentData(message.origin);
        IrTarget into = receivedInto(receive.origin);
        if (!orderCertain || receive.peer == Communicator.ANY_SOURCE || data == null || into == null) {
            return;
        }
        MpflType sent = data.type();
        MpflType expected = into.type();
        if (sent == null || expected == null || fits(sent, expected) || !reported.add(List.of(message.at, receive.at))) {
            return;
        }
        reporter.error(receive.at, "<" + IrActivity.elementName(receive.origin) + "> into '" + into.variable() + "' of type "
                + expected.spelling() + " matches the " + sent.spelling() + " that rank " + message.owner.worldRank()
                + " sends at " + message.at + " (" + message.describeTag() + ", comm " + message.comm.name() + "); " + sent.spelling()
                + " does not fit " + expected.spelling() + " (only numeric scalars widen): the run fails here on rank "
                + receive.owner.worldRank(),
                List.of(new Diagnostic.Note(message.at, "the " + sent.spelling() + " is sent here")));
    }

    private static boolean fits(MpflType sent, MpflType expected) {
        return expected == MpflType.OBJECT || sent == MpflType.OBJECT || expected.accepts(sent);
    }

    private static IrExpr sentData(IrActivity a) {
        if (a instanceof IrActivity.Send x) {
            return x.data();
        } else if (a instanceof IrActivity.ISend x) {
            return x.data();
        } else if (a instanceof IrActivity.SendRecv x) {
            return x.data();
        }
        return null;
    }

    private static IrTarget receivedInto(IrActivity a) {
        if (a instanceof IrActivity.Receive x) {
            return x.into();
        } else if (a instanceof IrActivity.IRecv x) {
            return x.into();
        } else if (a instanceof IrActivity.SendRecv x) {
            return x.into();
        }
        return null;
    }
}
