package org.mpfl.runtime.host;

import org.mpfl.runtime.transport.Inbox;

/**
 * What the MPIWS message receivers call: the {@link ServiceHost}, or the {@link ContainerRuntime} of
 * generated services deployed into a stock Axis2 container.
 */
interface MpiwsHandler {
    /** {@code run} of a rank of {@code serviceType}: the {@code runResponse} element. */
    String handleRun(String serviceType, String runXml) throws OperationFault;

    /** {@code status}: the {@code statusResponse} element. */
    String handleStatus(String statusXml) throws OperationFault;

    /** {@code abort}. */
    void handleAbort(String abortXml) throws OperationFault;

    /** Where {@code store}/{@code bstore} messages go. */
    Inbox inbox();
}
