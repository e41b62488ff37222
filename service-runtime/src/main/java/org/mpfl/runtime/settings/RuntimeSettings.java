package org.mpfl.runtime.settings;

import org.mpfl.ir.settings.Setting;

/**
 * Every system property the runtime (service hosts, transports, messaging, collectives, the
 * interpreter) reads, with its default (see docs/cli.md, "Settings"). The runtime reads them only
 * through these declarations. Give them to local hosts through {@code MPFL_HOST_JAVA_OPTS}.
 */
public final class RuntimeSettings {
    private RuntimeSettings() {
    }

    // collectives (defaults measured on the 2-core reference machine, docs/benchmarks.md "Collectives")
    /** One per operation: {@code forMember("bcast")}. */
    public static final Setting<String> COLLECTIVE_ALGORITHM = Setting.textProperty("mpfl.collective.<op>.algorithm", "auto",
            "auto", "forces the algorithm of every auto <op> collective (barrier, bcast, scatter, gather, allgather, reduce,"
                    + " allreduce, alltoall, scan) in this JVM");
    public static final Setting<Long> COLLECTIVE_BCAST_LONG_BYTES = Setting.longProperty("mpfl.collective.bcast.longBytes",
            4L << 20, "payload size from which an auto broadcast uses scatter+allgather instead of the binomial tree");
    public static final Setting<Integer> COLLECTIVE_BCAST_LONG_MIN_RANKS = Setting.intProperty(
            "mpfl.collective.bcast.longMinRanks", 8, "fewest ranks for the long-message broadcast");
    public static final Setting<Long> COLLECTIVE_ALLREDUCE_LONG_BYTES = Setting.longProperty(
            "mpfl.collective.allreduce.longBytes", 128 * 1024, "payload size from which an auto allreduce uses reduce-scatter+allgather");
    public static final Setting<Integer> COLLECTIVE_GATHER_BINOMIAL_MIN_RANKS = Setting.intProperty(
            "mpfl.collective.gather.binomialMinRanks", 16, "fewest ranks for which an auto gather uses the binomial tree");
    public static final Setting<Integer> COLLECTIVE_SCATTER_BINOMIAL_MIN_RANKS = Setting.intProperty(
            "mpfl.collective.scatter.binomialMinRanks", 4, "fewest ranks for which an auto scatter uses the binomial tree");
    public static final Setting<Integer> COLLECTIVE_REDUCE_BINOMIAL_MIN_RANKS = Setting.intProperty(
            "mpfl.collective.reduce.binomialMinRanks", 3, "fewest ranks for which an auto reduce uses the binomial tree");
    public static final Setting<Boolean> COLLECTIVE_HIERARCHICAL = Setting.booleanProperty("mpfl.collective.hierarchical", true,
            "auto uses the hierarchical barrier, broadcast and allreduce (and reduce across sites): one leader per site when"
                    + " ranks span several sites, else one per host when they span several hosts");

    // messaging
    public static final Setting<Long> UNEXPECTED_LIMIT_BYTES = Setting.longProperty("mpfl.unexpectedLimitBytes",
            "a quarter of the heap, at most 256 MiB", "per domain, most payload bytes held for messages no receive has matched yet; above it senders back off");
    public static final Setting<Long> EAGER_LIMIT_BYTES = Setting.longProperty("mpfl.eagerLimitBytes", 128L << 10,
            "a standard send of at most this many bytes copies the value and returns; a larger one waits until the transport took it");
    public static final Setting<Long> OUTBOUND_LIMIT_BYTES = Setting.longProperty("mpfl.outboundLimitBytes", 64L << 20,
            "per destination, most bytes of copied small messages queued at the sender before a send waits");
    public static final Setting<Long> DELIVERY_DEADLINE_MS = Setting.longProperty("mpfl.deliveryDeadlineMs", 30_000L,
            "how long a sender retries a store that fails (peer unreachable, I/O error) before the rank fails");
    public static final Setting<Long> RECEIVE_SPIN_MICROS = Setting.longProperty("mpfl.receiveSpinMicros", 0L,
            "how long a receive spins before it parks (0: parks at once)");

    // transports
    public static final Setting<String> TRANSPORT = Setting.textProperty("mpfl.transport", "auto", "auto",
            "transport of every domain that does not choose one: auto, local, binary or soap");
    public static final Setting<Long> BINARY_HANDSHAKE_TIMEOUT_MS = Setting.longProperty("mpfl.binary.handshakeTimeoutMs",
            5_000L, "a binary connection's handshake must complete within this, else the server drops it");
    public static final Setting<Long> BINARY_IDLE_TIMEOUT_MS = Setting.longProperty("mpfl.binary.idleTimeoutMs", 120_000L,
            "a binary connection without a byte received for this long is closed");
    public static final Setting<Integer> BINARY_MAX_CONNECTIONS = Setting.intProperty("mpfl.binary.maxConnections", 256,
            "most connections a host's binary channel accepts at once");
    public static final Setting<Long> BINARY_PROBE_TIMEOUT_MS = Setting.longProperty("mpfl.binary.probeTimeoutMs", 1000L,
            "how long a domain's set-up probe waits for a peer's binary port to take its connection (a dropped port costs this)");
    public static final Setting<Long> BINARY_PROBE_ANSWER_MS = Setting.longProperty("mpfl.binary.probeAnswerMs", 3000L,
            "once the probe's connection is taken, how long it waits for the peer's TLS handshake and HELLO");
    public static final Setting<Long> SOAP_BATCH_BYTES = Setting.longProperty("mpfl.soap.batchBytes", 1L << 20,
            "payload bytes one SOAP batch request carries at most");
    public static final Setting<Integer> SOAP_BATCH_MAX = Setting.intProperty("mpfl.soap.batchMax", 64,
            "most messages one SOAP batch request carries (1: no batching)");
    public static final Setting<Boolean> SOAP_LEAN_STORE = Setting.booleanProperty("mpfl.soap.leanStore", true,
            "false: SOAP stores go through Axis2 too instead of the host's lean reader (to measure the difference)");

    // service host
    public static final Setting<Long> HOST_MEMORY_BUDGET_BYTES = Setting.longProperty("mpfl.host.memoryBudgetBytes",
            "a quarter of the heap", "bytes of incoming messages a host holds at once");
    public static final Setting<Long> HOST_MAX_MESSAGE_BYTES = Setting.longProperty("mpfl.host.maxMessageBytes",
            "the memory budget, at most 2 GiB", "largest payload one message may announce; larger ones are refused unread");
    public static final Setting<Integer> HOST_THREADS = Setting.intProperty("mpfl.host.threads", 64,
            "request threads of a host's HTTP server");
    public static final Setting<Long> HOST_UNPROVEN_BODY_BYTES = Setting.longProperty("mpfl.host.unprovenBodyBytes", 1L << 20,
            "bytes of a SOAP request body the host reads through Axis2 (status, abort, a store without its SOAP action) "
                    + "before the request proved the engine's key or a domain token");
    public static final Setting<Integer> HOST_CONNECTION_QUEUE = Setting.intProperty("mpfl.host.connectionQueue", 256,
            "requests a host's HTTP server queues when every thread is busy");
    // what a connection that has not proved a credential may cost (docs/security.md, "Slow and flooding clients")
    public static final Setting<Long> GUARD_PROOF_DEADLINE_MS = Setting.longProperty("mpfl.guard.proofDeadlineMs", 5_000L,
            "a connection to a host's SOAP port or binary channel that has not proved a credential must finish its TLS"
                    + " handshake, request head and proof within this (each request again), else it is closed");
    public static final Setting<Integer> GUARD_PER_SOURCE = Setting.intProperty("mpfl.guard.perSource", 8,
            "most connections one source address may hold open at a host's SOAP port (and as many at its binary channel)"
                    + " before proving a credential; more are closed at once");
    public static final Setting<Integer> GUARD_STRANGERS = Setting.intProperty("mpfl.guard.strangers", 32,
            "most unproven connections from unknown addresses a host's SOAP port (and its binary channel) holds at once;"
                    + " the rest of mpfl.host.threads is the reserve for the engine and peers that proved a credential");
    public static final Setting<Long> HOST_EXIT_CLOSE_WAIT_MS = Setting.longProperty("mpfl.host.exitCloseWaitMs", 500L,
            "how long a host process's exit waits for the host to close");
    public static final Setting<Long> CHECKPOINT_UPLOAD_TIMEOUT_MS = Setting.longProperty("mpfl.checkpoint.uploadTimeoutMs",
            60_000L, "how long a rank's checkpoint upload to the engine may take");

    // interpreter
    public static final Setting<Long> INVOKE_TIMEOUT_MS = Setting.longProperty("mpfl.invoke.timeoutMs", 60_000L,
            "how long an <invoke> of an external web service may take");
    // kernels in other languages (docs/kernel-protocol.md)
    // the interpreter's setting is ProtocolSettings.KERNEL_PYTHON: the host launcher passes it on
    public static final Setting<String> KERNEL_COMMAND_DIRS = Setting.textProperty("mpfl.kernel.allowCommandDirs", "", "none",
            "directories (separated by the path separator) whose executables <compute command> may name by absolute path"
                    + " (mpflc host --allow-command-dir DIR)");
    public static final Setting<Long> KERNEL_START_TIMEOUT_MS = Setting.longProperty("mpfl.kernel.startTimeoutMs", 30_000L,
            "how long a rank waits for its kernel worker to start and import its modules");
    public static final Setting<Long> KERNEL_FRAME_TIMEOUT_MS = Setting.longProperty("mpfl.kernel.frameTimeoutMs", 30_000L,
            "how long a kernel worker may take to send the rest of a frame it began (a call itself has no bound)");
    public static final Setting<Long> KERNEL_LOG_BYTES_PER_CALL = Setting.longProperty("mpfl.kernel.logBytesPerCall", 64L << 10,
            "most bytes of a kernel's stdout/stderr per call that become log lines (the rest is counted, not shown)");
    public static final Setting<Boolean> TRACE_SPANS = Setting.booleanProperty("mpfl.trace.spans", true,
            "ranks record activity spans for mpflc trace (false: none)");
}
