package org.mpfl.runtime.host;

import org.mpfl.protocol.SoapFault;

/** A request the host answers with a SOAP fault (what the MPIWS receivers turn into an {@code AxisFault}). */
final class OperationFault extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient SoapFault fault;

    OperationFault(SoapFault fault) {
        super(fault.reason());
        this.fault = fault;
    }

    SoapFault fault() {
        return fault;
    }
}
