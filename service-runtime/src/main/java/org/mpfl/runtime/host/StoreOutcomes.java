package org.mpfl.runtime.host;

import org.mpfl.protocol.SoapFault;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox;

/** Maps an {@link Inbox.Outcome} to the robust in-only answer: no fault (202) or a SOAP 1.2 fault. */
final class StoreOutcomes {
    private StoreOutcomes() {
    }

    static SoapFault toFault(Inbox.Outcome outcome, Envelope e) {
        return switch (outcome) {
            case STORED, DUPLICATE -> null;
            case BUSY -> new SoapFault("Receiver", SoapFault.BUSY,
                    "rank " + e.to() + " cannot take the message now; retry later");
            case REJECTED -> new SoapFault("Sender", SoapFault.REJECTED,
                    "message rejected: bad token proof, or unknown, ended or aborted domain");
        };
    }
}
