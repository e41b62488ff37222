package org.mpfl.ir.plan;

/**
 * The names by which generated services meet the MPIWS runtime (service-runtime), in one place.
 * The compiler does not depend on the runtime (the runtime depends on the compiler for the IR), so
 * these are plain strings; the runtime's tests should assert they match its classes.
 */
public final class RuntimeBinding {
    /**
     * The program class of a generated service: service-runtime's {@code RankProgramFactory} that the
     * service host creates once per deployed archive and that runs each rank with the rank
     * interpreter (a runtime test asserts the name matches its class).
     */
    public static final String INTERPRETER_CLASS = "org.mpfl.runtime.interp.InterpreterService";

    /**
     * Axis2 message receiver of {@code run} and {@code status} named in services.xml (service-runtime's
     * {@code MpiwsInOutReceiver}): with it and the two below, the archive works in a stock Axis2 container.
     */
    public static final String IN_OUT_RECEIVER_CLASS = "org.mpfl.runtime.host.MpiwsInOutReceiver";

    /** Axis2 message receiver of {@code store}, {@code bstore} and {@code abort} (service-runtime's {@code MpiwsRobustInOnlyReceiver}). */
    public static final String ROBUST_IN_ONLY_RECEIVER_CLASS = "org.mpfl.runtime.host.MpiwsRobustInOnlyReceiver";

    /**
     * The Axis2 {@code ServiceLifeCycle} of a generated service (services.xml {@code <service class=…>},
     * service-runtime's {@code ContainerServiceLifeCycle}): binds the service to the container's MPFL
     * messaging when deployed into a stock Axis2, does nothing inside an MPFL service host.
     */
    public static final String LIFECYCLE_CLASS = "org.mpfl.runtime.host.ContainerServiceLifeCycle";

    /**
     * One class of each jar the runtime needs in a container that has none of it (what
     * {@code mpflc compile --bundle-runtime} copies into the archive's {@code lib/}): service-runtime,
     * mpfl-api (the activity API it implements), mpfl-ir (the IR the interpreter runs), mpiws-protocol, Jackson (databind, core, annotations), SLF4J API.
     * Never the compiler proper or ANTLR: a rank runs checked IR and parses nothing.
     * Stock Axis2 ships none of them (it logs through commons-logging).
     */
    public static final String[] RUNTIME_CLASSES = {
        INTERPRETER_CLASS,
        "org.mpfl.runtime.api.Activity",
        "org.mpfl.ir.IrProcess",
        "org.mpfl.protocol.RunRequest",
        "com.fasterxml.jackson.databind.ObjectMapper",
        "com.fasterxml.jackson.core.JsonFactory",
        "com.fasterxml.jackson.annotation.JsonProperty",
        "org.slf4j.LoggerFactory",
    };

    /** services.xml parameter from which the service host learns the rank program class ({@code ServiceHost.PROGRAM_PARAMETER}). */
    public static final String PROGRAM_CLASS_PARAMETER = "mpfl.rankProgram";

    /** services.xml parameter: archive entry of this service's program (process IR) JSON. */
    public static final String PROGRAM_ENTRY_PARAMETER = "mpfl.program";

    /** services.xml parameter: archive entry of the whole deployment plan JSON. */
    public static final String PLAN_ENTRY_PARAMETER = "mpfl.plan";

    /** services.xml parameter: the process this service runs. */
    public static final String PROCESS_PARAMETER = "mpfl.process";

    /** Archive entry of the process program ({@link ServiceProgram} JSON). */
    public static final String PROGRAM_ENTRY = "mpfl/program.json";

    /** Archive entry of the deployment plan. */
    public static final String PLAN_ENTRY = "mpfl/plan.json";

    /** Namespace of the MPIWS messages (as {@code MpiwsNames.NS} of the runtime). */
    public static final String MPIWS_NAMESPACE = "urn:mpfl:mpiws";

    /** The MPIWS operations, in WSDL order; {@code run} and {@code status} are request-response, the others robust in-only. */
    public static final String[] OPERATIONS = {"run", "store", "bstore", "status", "abort"};

    private RuntimeBinding() {
    }

    /** SOAP 1.2 action of an operation ({@code urn:mpfl:mpiws:run}). */
    public static String action(String operation) {
        return MPIWS_NAMESPACE + ":" + operation;
    }

    public static boolean isRequestResponse(String operation) {
        return operation.equals("run") || operation.equals("status");
    }
}
