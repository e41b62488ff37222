package org.mpfl.runtime.host;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.FaultKind;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunMessages;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.DeliveryException;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.monitor.CheckpointSink;
import org.mpfl.runtime.monitor.LocatedFailure;
import org.mpfl.runtime.monitor.RankMonitor;
import org.mpfl.runtime.p2p.RankInstance;
import org.mpfl.runtime.topology.CollectiveCommunicator;
import org.mpfl.runtime.topology.RankRuntime;
import org.mpfl.runtime.transport.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank started by {@code run} in this host: runs its {@link RankProgram} on its own thread,
 * is the program's {@link RankContext} (also its {@link RankMonitor} and, for the rank interpreter, its
 * {@link RankRuntime}), reports {@link RankEvent}s to the engine and keeps its final
 * state, progress, counters and outputs for {@code status} after it ended.
 */
final class HostedRank implements RankContext, RankMonitor, RankRuntime.Provider, CheckpointSink {
    private static final Logger LOG = LoggerFactory.getLogger(HostedRank.class);

    private final RunRequest request;
    private final String serviceType;
    private final RankProgram program;
    private final RankInstance instance;
    private final Communicator world;
    private final RankRuntime runtime;
    private final RankEvents events;
    private final CheckpointUploader checkpoints;
    private final AtomicLong eventSeq = new AtomicLong();
    private final Map<String, Object> outputs = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, Communicator> processComms = new java.util.concurrent.ConcurrentHashMap<>();
    private final Runnable onFailure;
    private volatile String state = "pending";
    private volatile double progressValue = Double.NaN;
    private volatile double progressTotal = Double.NaN;
    private volatile String failure;
    private volatile FaultKind failureFault;
    /**
     * The counters as the rank ended with them, written as JSON only when a {@code status} asks: ranks in the
     * command line's JVM are never asked, and their run then needs no JSON mapper.
     */
    private volatile Object finalCounters;

    HostedRank(RunRequest request, String serviceType, RankProgram program, RankInstance instance,
               Communicator world, RankEvents events, java.net.http.HttpClient checkpointHttp, Runnable onFailure) {
        this.request = request;
        this.serviceType = serviceType;
        this.program = program;
        this.instance = instance;
        this.world = world;
        this.runtime = RankRuntime.of(instance);
        this.events = events;
        // (no callback address, as for ranks in the command line's JVM: no uploads, so no client is needed)
        this.checkpoints = new CheckpointUploader(request, checkpointHttp, runtime::isAborted);
        this.onFailure = onFailure;
    }

    String serviceType() {
        return serviceType;
    }

    /** Starts the program on its own (non-daemon) thread. */
    void start() {
        Thread t = new Thread(this::runProgram, "mpfl-rank-" + shortId() + "-" + request.rank());
        t.setDaemon(false);
        t.start();
    }

    private void runProgram() {
        setState("running", null);
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(program.getClass().getClassLoader());
        try {
            program.run(this);
            instance.finish();
            reportCounters();
            setState("done", null);
        } catch (Throwable e) {
            String why = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            // a located failure (the interpreter's faults) already reads as the user's error
            LocatedFailure site = e instanceof LocatedFailure l ? l : null;
            if (site != null && e.getMessage() != null) {
                why = e.getMessage();
            }
            // as its FAILED event carries it: the log, the status answer and the event say the same
            why = RankEvent.bounded(why);
            if (site != null) {
                // a fault of the workflow at a place in its document, not of this host: the message says all (the trace
                // is the interpreter's), and it is the run's outcome, which the run's status (and mpflc run) reports.
                // Not a warning, so that a run in mpflc's own JVM (warnings only) does not print it once per rank
                LOG.info("rank {} of domain {} failed: {}", request.rank(), shortId(), why);
            } else if (!(e instanceof DomainAbortedException)) {
                LOG.warn("rank {} of domain {} failed", request.rank(), shortId(), e);
            }
            try {
                instance.close();
            } catch (RuntimeException ignored) {
                // already ended
            }
            reportCounters();
            failureFault = faultOf(e);
            failure = why;
            state = "failed";
            event(RankEvent.Type.STATE, "FAILED", site == null ? null : site.activity(), site == null ? null : site.location(), why,
                    null, null, null, failureFault);
            if (!(e instanceof DomainAbortedException)) {
                onFailure.run();
            }
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
            events.flush(Duration.ofSeconds(5));
        }
    }

    /**
     * Whose fault a rank program's exception is: a located failure says it (the interpreter's), a delivery or
     * transport failure of a program's own messages is the infrastructure's, anything else the workflow's.
     */
    static FaultKind faultOf(Throwable e) {
        if (e instanceof LocatedFailure located) {
            return located.fault();
        }
        return e instanceof DeliveryException || e instanceof TransportException ? FaultKind.INFRASTRUCTURE : FaultKind.WORKFLOW;
    }

    private void reportCounters() {
        try {
            Object value = instance.counters().asEventValue();
            finalCounters = value;
            event(RankEvent.Type.COUNTERS, null, null, null, null, value);
        } catch (RuntimeException e) {
            LOG.debug("no counters", e);
        }
    }

    private void setState(String s, String message) {
        state = s;
        event(RankEvent.Type.STATE, s.toUpperCase(java.util.Locale.ROOT), message, null, null, null);
    }

    private void event(RankEvent.Type type, String st, String message, String level, String name, Object value) {
        event(type, st, null, null, message, level, name, value);
    }

    private void event(RankEvent.Type type, String st, String activity, String location, String message, String level,
                       String name, Object value) {
        event(type, st, activity, location, message, level, name, value, null);
    }

    private void event(RankEvent.Type type, String st, String activity, String location, String message, String level,
                       String name, Object value, FaultKind fault) {
        events.post(new RankEvent(request.domainId(), request.rank(), eventSeq.getAndIncrement(),
                System.currentTimeMillis(), type, st, activity, location, message, level, name, value, fault));
    }

    /** Whether {@code proof} is the domain token's proof for reading this rank's outputs ({@code status}). */
    boolean provesStatus(byte[] proof) {
        String token = request.token();
        return token != null && !token.isBlank()
                && new DomainToken(token).verifyStatus(request.domainId(), request.rank(), proof);
    }

    RankStatus status() {
        // the state is read first: outputs are recorded before "done"/"failed" is written (volatile),
        // so a final state read here guarantees the outputs read below are complete. Reading the
        // outputs first could pair an earlier, partial snapshot with a later "done".
        String st = state;
        String why = failure;
        FaultKind fault = failureFault;
        Map<String, String> out = outputsSnapshot();
        Object finalValue = finalCounters;
        String counters = null;
        if (finalValue != null || !instance.isEnded()) {
            try {
                counters = RunMessages.toJson(finalValue != null ? finalValue : instance.counters().asEventValue());
            } catch (RuntimeException ignored) {
                // counters are optional in a status answer
            }
        }
        return new RankStatus(st, progressValue, progressTotal, counters, out, why, fault);
    }

    private Map<String, String> outputsSnapshot() {
        Map<String, String> out = new LinkedHashMap<>();
        synchronized (outputs) {
            for (Map.Entry<String, Object> e : outputs.entrySet()) {
                out.put(e.getKey(), RunMessages.toJson(e.getValue()));
            }
        }
        return out;
    }

    boolean isFinished() {
        return state.equals("done") || state.equals("failed");
    }

    private String shortId() {
        String id = request.domainId();
        return id.length() > 8 ? id.substring(0, 8) : id;
    }

    // ------------------------------------------------------------------ RankContext

    @Override
    public Communicator world() {
        return world;
    }

    @Override
    public Communicator process(String processName) {
        return processComms.computeIfAbsent(processName, this::buildProcessCommunicator);
    }

    private Communicator buildProcessCommunicator(String processName) {
        List<RunRequest.ProcessSlice> slices = request.processes();
        if (slices == null || slices.isEmpty()) {
            if (processName.equals(serviceType)) {
                return world;
            }
            throw new IllegalArgumentException("no process named " + processName + " in this run");
        }
        if (slices.size() == 1 && slices.get(0).name().equals(processName)) {
            return world;
        }
        return CollectiveCommunicator.process(instance, slices, processName);
    }

    @Override
    public String domainId() {
        return request.domainId();
    }

    @Override
    public Map<String, Object> params() {
        return request.params() == null ? Map.of() : request.params();
    }

    @Override
    public void output(String name, Object value) {
        outputs.put(name, value);
        event(RankEvent.Type.OUTPUT, null, null, null, name, value);
    }

    @Override
    public void log(String level, String message) {
        event(RankEvent.Type.LOG, null, message, level, null, null);
    }

    @Override
    public void progress(double value, double total) {
        progressValue = value;
        progressTotal = total;
        event(RankEvent.Type.PROGRESS, null, null, null, null, Map.of("value", value, "total", total));
    }

    // ------------------------------------------------------------------ RankRuntime.Provider

    @Override
    public RankRuntime rankRuntime() {
        return runtime;
    }

    // ------------------------------------------------------------------ RankMonitor

    @Override
    public List<RunRequest.ProcessSlice> processes() {
        List<RunRequest.ProcessSlice> slices = request.processes();
        return slices == null ? List.of() : slices;
    }

    @Override
    public void activity(String activity, String location) {
        event(RankEvent.Type.ACTIVITY, null, activity, location, null, null, null, null);
    }

    @Override
    public void waiting(String activity, String location, String waitingFor) {
        event(RankEvent.Type.WAIT, null, activity, location, waitingFor, null, null, null);
    }

    // ------------------------------------------------------------------ CheckpointSink

    @Override
    public boolean stores() {
        return checkpoints.hasTarget();
    }

    @Override
    public RunRequest.Resume resume() {
        return request.resume();
    }

    @Override
    public String store(long checkpoint, byte[] part) {
        return checkpoints.upload(checkpoint, part);
    }

    @Override
    public void checkpointed(long checkpoint, long bytes, long millis, String failure) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("checkpoint", checkpoint);
        value.put("bytes", bytes);
        value.put("ms", millis);
        value.put("stored", failure == null);
        event(RankEvent.Type.CHECKPOINT, null, null, null, failure, failure == null ? null : "warn", null, value);
    }

    @Override
    public void spans(Map<String, Object> batch) {
        event(RankEvent.Type.SPANS, null, null, null, null, null, null, batch);
    }
}
