package org.mpfl.engine.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.DeadlockDetector;
import org.mpfl.engine.run.LogTail;
import org.mpfl.engine.run.RandomIds;
import org.mpfl.engine.run.RankPosition;
import org.mpfl.engine.run.RunError;
import org.mpfl.engine.run.RunProgress;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.engine.settings.EngineSettings;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.launch.InProcessRanks;

/**
 * One run of {@code mpflc run --local} with its ranks as threads of this JVM ({@link InProcessRanks}): no
 * engine, no REST server, no service host, no run store. It does what the engine does for a run on one host
 * — the {@code run} requests (one domain, its id and token, the process slices, the parameters with the
 * plan's defaults), the rank events folded into the run's state, its first failure (with its source
 * location) ending it and aborting the domain, the deadlock watch — and shows the run as the engine's
 * {@code GET /api/runs/{id}} would ({@link #view}: id, state, progress, ranks, outputs, error, elapsedMs),
 * so that the command line follows and reports it the same way.
 */
public final class InProcessRun implements AutoCloseable {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** How often the deadlock watch looks (the engine's ticker looks about as often). */
    private static final long WATCH_MS = 250;

    private final String id = RandomIds.of(12);
    private final long createdMs = System.currentTimeMillis();
    private final DeadlockDetector deadlocks = new DeadlockDetector();
    private final long deadlockGraceMs = RunSettings.defaults().deadlockGrace().toMillis();
    private final List<RankState> ranks = new ArrayList<>();
    private String state = "PENDING";
    private RunError error;
    private long endedMs;
    private InProcessRanks.Domain domain;
    /** Whether the caller prints every log line from the views it takes ({@link #followLogs}). */
    private boolean logsFollowed;

    private InProcessRun() {
    }

    /** The run's id, as its views show it. */
    public String id() {
        return id;
    }

    /** Whether ranks can run in this JVM: the service runtime is on the class path. */
    public static boolean available() {
        return InProcessRanks.find().isPresent();
    }

    /**
     * Whether in-process ranks can run this plan: there is an archive for the service type of every process
     * (a plan without its archives names services deployed elsewhere, which only an engine can reach), or
     * {@code programsInPlan}: the plan was compiled here for ranks in this JVM, which run the processes
     * without an archive from the plan's programs ({@code WorkflowCompiler#compileForThisJvm}).
     */
    public static boolean runs(DeploymentPlan plan, Map<String, byte[]> archives, boolean programsInPlan) {
        return plan.processes().stream().allMatch(p -> archives.containsKey(p.service())
                || programsInPlan && p.program() != null);
    }

    /**
     * Starts every rank of the plan with the parameters given (over the plan's defaults); a process without
     * an archive runs from the plan's program ({@link #runs}).
     *
     * @throws IllegalArgumentException the rank counts cannot be worked out from the parameters
     * @throws Exception an archive cannot be loaded or a rank refused to start
     */
    public static InProcessRun start(DeploymentPlan plan, Map<String, byte[]> archives, Map<String, Object> params)
            throws Exception {
        InProcessRanks runtime = InProcessRanks.find().orElseThrow(() -> new IOException(
                "no service runtime on the class path to run ranks in this JVM"));
        Map<String, Object> all = withDefaults(plan, params);
        ProcessLayout layout = checkedLayout(plan, all);
        String hostId = "inprocess-" + RandomIds.of(6);
        String domainId = RandomIds.domainId();
        String token = RandomIds.domainToken();
        List<RunRequest.ProcessSlice> slices = new ArrayList<>();
        for (String process : layout.processes()) {
            slices.add(new RunRequest.ProcessSlice(process, plan.process(process).service(), layout.count(process)));
        }
        List<Endpoint> endpoints = new ArrayList<>();
        for (int r = 0; r < layout.worldSize(); r++) {
            endpoints.add(new Endpoint("inprocess://" + hostId + "/" + r, null, hostId));
        }
        InProcessRun run = new InProcessRun();
        List<InProcessRanks.Rank> toStart = new ArrayList<>();
        Map<String, Object> runParams = Map.copyOf(all);
        for (int r = 0; r < layout.worldSize(); r++) {
            run.ranks.add(new RankState(r));
            String service = plan.process(layout.processOf(r)).service();
            toStart.add(new InProcessRanks.Rank(service, new RunRequest(domainId, r, endpoints, slices, runParams, token,
                    null, RunSettings.defaults().transport())));
        }
        synchronized (run) {
            // events may come before start returns: the domain is set first, under the same lock
            run.domain = runtime.start(hostId, plan, archives, toStart, run::apply);
            if (run.state.equals("PENDING")) {
                run.state = "RUNNING";
            }
            run.endIfDecided();
        }
        Thread watch = new Thread(run::watchDeadlocks, "mpfl-inprocess-deadlock-watch");
        watch.setDaemon(true);
        watch.start();
        return run;
    }

    /**
     * Checks that this JVM would run the plan's ranks with these parameters: their counts can be worked out and
     * are at most {@code mpfl.local.maxRanks} ({@link EngineSettings#LOCAL_MAX_RANKS}). Each rank is a thread with
     * its own endpoint and request, made before any starts: a count in the millions (a parameter typed wrong) would
     * fill the heap with nothing running, and some thousands leave a laptop's few cores no time for anything else.
     *
     * @throws IllegalArgumentException saying why not and what to do instead
     */
    public static void check(DeploymentPlan plan, Map<String, Object> params) {
        checkedLayout(plan, withDefaults(plan, params));
    }

    /** The plan's parameter defaults with {@code params} ({@code null}: none) over them. */
    private static Map<String, Object> withDefaults(DeploymentPlan plan, Map<String, Object> params) {
        Map<String, Object> all = new LinkedHashMap<>(plan.defaults());
        if (params != null) {
            all.putAll(params);
        }
        return all;
    }

    private static ProcessLayout checkedLayout(DeploymentPlan plan, Map<String, Object> values) {
        ProcessLayout layout;
        try {
            layout = plan.layout(plan.paramValues(values));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("plan '" + plan.workflow() + "': cannot work out the rank counts: "
                    + e.getMessage(), e);
        }
        int limit = EngineSettings.LOCAL_MAX_RANKS.get();
        if (layout.worldSize() > limit) {
            throw new IllegalArgumentException("plan '" + plan.workflow() + "' has " + layout.worldSize() + " ranks; run --local"
                    + " runs at most " + limit + " as threads of this JVM (-Dmpfl.local.maxRanks), so that the machine stays"
                    + " usable: run it on an engine whose service hosts have the cores (mpflc up, then mpflc host on each"
                    + " machine, mpflc run --engine URL), or give fewer ranks");
        }
        return layout;
    }

    /**
     * The run as the engine's REST API shows it (the fields the command line reads). Built from Jackson's
     * node factory, not with an {@code ObjectMapper}: creating one (and its serialisers) would be most of the
     * JSON work of the README's first run, whose outputs are plain numbers and texts ({@link #node}).
     */
    public synchronized JsonNode view() {
        ObjectNode m = NODES.objectNode();
        m.put("id", id);
        m.put("state", state);
        m.put("progress", progress());
        ArrayNode rs = m.putArray("ranks");
        Map<String, Map<Integer, Object>> outputs = new TreeMap<>();
        for (RankState r : ranks) {
            ObjectNode v = rs.addObject();
            v.put("rank", r.rank);
            v.put("state", r.state);
            v.put("activity", r.position.activity());
            v.put("location", r.position.location());
            v.set("logs", node(r.logs.lines()));
            v.put("logCount", r.logs.count());
            r.shownLogs = r.logs.count();
            r.outputs.forEach((k, value) -> outputs.computeIfAbsent(k, x -> new TreeMap<>()).put(r.rank, value));
        }
        ObjectNode out = m.putObject("outputs");
        outputs.forEach((name, byRank) -> {
            ObjectNode o = out.putObject(name);
            byRank.forEach((rank, value) -> o.set(String.valueOf(rank), node(value)));
        });
        if (error != null) {
            ObjectNode e = m.putObject("error");
            if (error.rank() == null) {
                e.putNull("rank");
            } else {
                e.put("rank", error.rank());
            }
            e.put("location", error.location());
            e.put("message", error.message());
        } else {
            m.putNull("error");
        }
        m.put("elapsedMs", (endedMs == 0 ? System.currentTimeMillis() : endedMs) - createdMs);
        if (logsFollowed) {
            notifyAll(); // ranks waiting to log (followLogs) go on
        }
        return m;
    }

    /**
     * An output value as the engine's mapper would write it into the view: the values of MPFL's own types
     * (numbers, booleans, texts, arrays, lists and maps of them) here; anything else through the mapper.
     */
    static JsonNode node(Object value) {
        if (value == null) {
            return NODES.nullNode();
        } else if (value instanceof String s) {
            return NODES.textNode(s);
        } else if (value instanceof Integer i) {
            return NODES.numberNode(i);
        } else if (value instanceof Long l) {
            return NODES.numberNode(l);
        } else if (value instanceof Double d) {
            return NODES.numberNode(d);
        } else if (value instanceof Boolean b) {
            return NODES.booleanNode(b);
        } else if (value instanceof int[] || value instanceof long[] || value instanceof double[] || value instanceof boolean[]) {
            // elements boxed as Integer, Long, Double, Boolean: the nodes above (byte[] and char[] the mapper
            // writes otherwise, as base64 and as text, so they go to it)
            int length = java.lang.reflect.Array.getLength(value);
            ArrayNode n = NODES.arrayNode(length);
            for (int i = 0; i < length; i++) {
                n.add(node(java.lang.reflect.Array.get(value, i)));
            }
            return n;
        } else if (value instanceof List<?> list) {
            ArrayNode n = NODES.arrayNode(list.size());
            list.forEach(x -> n.add(node(x)));
            return n;
        } else if (value instanceof Map<?, ?> map && map.keySet().stream().allMatch(k -> k instanceof String)) {
            ObjectNode n = NODES.objectNode();
            map.forEach((k, x) -> n.set((String) k, node(x)));
            return n;
        }
        return Json.MAPPER.valueToTree(value);
    }

    /**
     * The caller prints every rank's log lines from the views it takes ({@link #view}), as {@code mpirun} prints its
     * ranks' output: a rank whose line would push one out of its kept tail ({@link LogTail#MAX_LINES}) before a view
     * showed it waits for the next view, as a rank of {@code mpirun} waits while its output pipe is full. So no line
     * is lost and no more than the tail is held. Until the run ends or is closed.
     */
    public synchronized void followLogs() {
        logsFollowed = true;
    }

    /** Whether the run ended (SUCCEEDED, FAILED or CANCELLED). */
    public synchronized boolean ended() {
        return endedMs != 0;
    }

    /** Waits up to {@code ms} for a change of the run (returns at once if it ended). */
    public synchronized void awaitChange(long ms) throws InterruptedException {
        if (endedMs == 0) {
            wait(ms);
        }
    }

    /**
     * Cancels the run (as {@code POST /api/runs/{id}/cancel}): CANCELLED, its ranks aborted.
     *
     * @param reason why, for the run's error ({@link RunError#cancelled}); {@code null}: the user's cancel
     */
    public void cancel(String reason) {
        endAndAbort("CANCELLED", new RunError(null, null, RunError.cancelled(reason, null)));
    }

    /** Waits (bounded) for every rank to end after the run ended, then releases what the ranks used. */
    @Override
    public void close() {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        synchronized (this) {
            // nobody prints any more: a rank waiting to log (followLogs) must not wait for a view that never comes
            logsFollowed = false;
            notifyAll();
            try {
                while (ranks.stream().anyMatch(r -> !r.isFinal()) && System.nanoTime() < deadline) {
                    wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        InProcessRanks.Domain d = domain;
        if (d != null) {
            d.close();
        }
    }

    /** One rank event, as the engine applies it to its run ({@code Run.apply}). */
    private synchronized void apply(RankEvent e) {
        if (e.rank() < 0 || e.rank() >= ranks.size()) {
            return;
        }
        RankState r = ranks.get(e.rank());
        r.moves++;
        switch (e.type()) {
            case STATE -> applyState(r, e);
            case ACTIVITY, WAIT -> r.position = r.position.after(e);
            case PROGRESS -> {
                if (e.value() instanceof Map<?, ?> p && p.get("value") instanceof Number v && p.get("total") instanceof Number t) {
                    r.progressValue = v.doubleValue();
                    r.progressTotal = t.doubleValue();
                }
            }
            case OUTPUT -> r.outputs.put(e.name(), e.value());
            case LOG -> {
                awaitRoomToLog(r);
                r.logs.add(e.timeMs(), e.level(), e.message()); // as the engine keeps them, for mpflc run to print
            }
            default -> { }
        }
        notifyAll();
    }

    /** With {@link #followLogs}: waits (on the rank's thread, the run's lock released) until a view showed the lines kept. */
    private void awaitRoomToLog(RankState r) {
        boolean said = false;
        while (logsFollowed && endedMs == 0 && r.logs.count() - r.shownLogs >= LogTail.MAX_LINES) {
            try {
                if (!said) {
                    // the follower looks now (awaitChange), not after its poll interval; once: waiting ranks that
                    // woke each other on every turn would keep the follower from ever taking the lock
                    notifyAll();
                    said = true;
                }
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void applyState(RankState r, RankEvent e) {
        String s = e.state() == null ? null : e.state().toUpperCase(java.util.Locale.ROOT);
        if (s == null || r.isFinal()) {
            return;
        }
        if (s.equals("FAILED") && e.message() != null && e.message().startsWith("DomainAbortedException")) {
            // a consequence of an abort (another rank's fault, a cancel), not a cause
            s = "ABORTED";
        }
        r.state = s;
        r.message = e.message();
        // an ended rank waits no more; a failure names where it happened
        r.position = new RankPosition(e.activity() != null ? e.activity() : r.position.activity(),
                e.location() != null ? e.location() : r.position.location(), false, null);
        if (s.equals("FAILED") && endedMs == 0) {
            // the first failure is the run's; the failing rank's table aborts the domain, as in a service host
            end("FAILED", new RunError(r.rank, r.position.location(), e.message() == null ? "failed" : e.message()));
            return;
        }
        endIfDecided();
    }

    /** All ranks DONE: SUCCEEDED; all ended and none failed on its own: FAILED, the domain aborted. */
    private void endIfDecided() {
        if (endedMs != 0 || domain == null || !ranks.stream().allMatch(RankState::isFinal)) {
            return;
        }
        if (ranks.stream().allMatch(r -> r.state.equals("DONE"))) {
            end("SUCCEEDED", null);
        } else {
            RankState first = ranks.stream().filter(r -> r.state.equals("ABORTED")).findFirst().orElse(ranks.get(0));
            end("FAILED", new RunError(first.rank, first.position.location(), first.message == null ? "domain aborted" : first.message));
        }
    }

    /** Ends the run unless it ended already; {@code false} then. */
    private synchronized boolean end(String finalState, RunError why) {
        if (endedMs != 0) {
            return false;
        }
        state = finalState;
        error = why;
        endedMs = System.currentTimeMillis();
        notifyAll();
        return true;
    }

    /** Ends the run from outside its ranks and aborts them (not under the run's lock: aborted ranks report). */
    private void endAndAbort(String finalState, RunError why) {
        InProcessRanks.Domain d;
        synchronized (this) {
            d = domain;
        }
        if (end(finalState, why) && d != null) {
            d.abort(why.message());
        }
    }

    /** The engine's deadlock watch: every live rank blocked, nothing moving for the grace period, fails the run. */
    private void watchDeadlocks() {
        try {
            while (!ended()) {
                Thread.sleep(WATCH_MS);
                Optional<RunError> deadlock;
                synchronized (this) {
                    List<DeadlockDetector.Wait> waits = ranks.stream().map(r -> new DeadlockDetector.Wait(r.rank, !r.isFinal(),
                            r.position.blocked(), r.position.waitingFor(), r.position.location(), r.moves)).toList();
                    deadlock = deadlocks.check(waits, System.currentTimeMillis(), deadlockGraceMs);
                }
                deadlock.ifPresent(d -> endAndAbort("FAILED", d));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The run's progress as the engine computes it. */
    private double progress() {
        return RunProgress.of(ranks.stream().map(r -> new RunProgress.Rank(r.progressValue, r.progressTotal,
                r.state.equals("DONE"))).toList());
    }

    /** One rank as its events leave it. */
    private static final class RankState {
        final int rank;
        String state = "PENDING";
        RankPosition position = RankPosition.NONE;
        String message;
        /** Events so far: what the deadlock watch takes as movement (the engine counts messages sent). */
        long moves;
        double progressValue = Double.NaN;
        double progressTotal = Double.NaN;
        final Map<String, Object> outputs = new LinkedHashMap<>();
        final LogTail logs = new LogTail();
        /** The log count the last view showed ({@link #followLogs}). */
        long shownLogs;

        RankState(int rank) {
            this.rank = rank;
        }

        boolean isFinal() {
            return state.equals("DONE") || state.equals("FAILED") || state.equals("ABORTED");
        }
    }
}
