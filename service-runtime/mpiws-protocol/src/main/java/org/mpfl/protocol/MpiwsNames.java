package org.mpfl.protocol;

/**
 * The names of the MPIWS SOAP contract: namespaces, operation names, SOAP 1.2 action URIs and the
 * URL layout of a service host. Shared by the server (host), the SOAP transport, the engine client
 * and the WSDL so that they cannot drift apart.
 */
public final class MpiwsNames {
    /** Namespace of every MPIWS message element. */
    public static final String NS = "urn:mpfl:mpiws";
    /** SOAP 1.2 envelope namespace. */
    public static final String SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope";
    /** XOP include namespace (MTOM). */
    public static final String XOP_NS = "http://www.w3.org/2004/08/xop/include";

    public static final String OP_RUN = "run";
    public static final String OP_STORE = "store";
    public static final String OP_BSTORE = "bstore";
    public static final String OP_STATUS = "status";
    public static final String OP_ABORT = "abort";
    /**
     * Several {@code store}/{@code bstore} calls in one MTOM package, each answered on its own
     * ({@code docs/wire-format.md}, "Batched stores"); not in the WSDL: MPFL hosts send it to MPFL
     * hosts, and fall back to single stores when a server does not understand it.
     */
    public static final String OP_STORE_BATCH = "storeBatch";

    /** Context path under which the service host publishes every service type. */
    public static final String SERVICES_PATH = "/axis2/services/";

    private MpiwsNames() {
    }

    /** The SOAP 1.2 action URI of an operation ({@code urn:mpfl:mpiws:store}). */
    public static String action(String operation) {
        return NS + ":" + operation;
    }

    /** The operation named by an action URI, or {@code null} if it is not an MPIWS action. */
    public static String operationOfAction(String action) {
        if (action == null || !action.startsWith(NS + ":")) {
            return null;
        }
        return action.substring(NS.length() + 1);
    }

    /** A SOAP 1.2 envelope around one body element (the control operations' request form). */
    public static String envelope(String bodyContent) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><s:Envelope xmlns:s=\"" + SOAP12_NS
                + "\"><s:Body>" + bodyContent + "</s:Body></s:Envelope>";
    }
}
