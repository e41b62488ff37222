package org.mpfl.runtime.interp;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.plan.ParamValues;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.interp.kernel.KernelLibraries;
import org.mpfl.runtime.p2p.MessagingHost;
import org.mpfl.runtime.p2p.MessagingSettings;
import org.mpfl.runtime.monitor.RankMonitor;
import org.mpfl.runtime.p2p.RankInstance;
import org.mpfl.runtime.topology.CollectiveCommunicator;
import org.mpfl.runtime.topology.RankRuntime;

/**
 * Runs an MPFL document from {@code src/test/resources/interp} with the rank interpreter, every
 * rank on its own thread in this JVM over the runtime's local transport — the service host minus
 * Axis2: a failing rank aborts the domain as the host does, and each rank's context records its
 * outputs, logs and monitoring events.
 */
final class InterpreterHarness {
    /** What one rank's context saw. */
    static final class RankRecord implements RankContext, RankMonitor, RankRuntime.Provider,
            org.mpfl.runtime.monitor.CheckpointSink {
        final int rank;
        final Communicator world;
        final RankInstance instance;
        final List<RunRequest.ProcessSlice> slices;
        final Map<String, Object> params;
        final Map<String, Object> outputs = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
        final List<String> logs = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<double[]> progress = new CopyOnWriteArrayList<>();
        private final Map<String, Communicator> processComms = new ConcurrentHashMap<>();
        volatile Throwable failure;
        volatile long endedNanos;
        /** The parts of checkpoints this rank stored, by checkpoint number (the engine's role). */
        final Map<Long, String> checkpoints = new ConcurrentHashMap<>();
        /** What each checkpoint reported: number, bytes, failure. */
        final List<String> checkpointEvents = new CopyOnWriteArrayList<>();
        volatile RunRequest.Resume resume;

        @Override
        public boolean stores() {
            return true;
        }

        @Override
        public RunRequest.Resume resume() {
            return resume;
        }

        @Override
        public String store(long checkpoint, byte[] part) {
            checkpoints.put(checkpoint, new String(part, java.nio.charset.StandardCharsets.UTF_8));
            return null;
        }

        @Override
        public void checkpointed(long checkpoint, long bytes, long millis, String failure) {
            checkpointEvents.add(checkpoint + " " + bytes + (failure == null ? "" : " " + failure));
        }

        RankRecord(int rank, RankInstance instance, List<RunRequest.ProcessSlice> slices, Map<String, Object> params) {
            this.rank = rank;
            this.instance = instance;
            this.world = CollectiveCommunicator.world(instance);
            this.slices = slices;
            this.params = params;
        }

        @Override
        public Communicator world() {
            return world;
        }

        @Override
        public RankRuntime rankRuntime() {
            return RankRuntime.of(instance);
        }

        @Override
        public Communicator process(String processName) {
            return processComms.computeIfAbsent(processName, n -> slices.size() == 1 ? world
                    : CollectiveCommunicator.process(instance, slices, n));
        }

        @Override
        public String domainId() {
            return instance.domainId();
        }

        @Override
        public Map<String, Object> params() {
            return params;
        }

        @Override
        public void output(String name, Object value) {
            outputs.put(name, value);
        }

        @Override
        public void log(String level, String message) {
            logs.add(level + ": " + message);
        }

        @Override
        public void progress(double value, double total) {
            progress.add(new double[] {value, total});
        }

        @Override
        public List<RunRequest.ProcessSlice> processes() {
            return slices;
        }

        @Override
        public void activity(String activity, String location) {
            events.add("ACTIVITY " + activity + " @ " + location);
        }

        @Override
        public void waiting(String activity, String location, String waitingFor) {
            events.add("WAIT " + activity + " @ " + location + ": " + waitingFor);
        }

        /** The fault of this rank, or null when it succeeded or was only aborted. */
        RankFault fault() {
            return failure instanceof RankFault f ? f : null;
        }

        boolean aborted() {
            return failure instanceof DomainAbortedException;
        }
    }

    /** A finished (or abandoned) run. */
    record Result(List<RankRecord> ranks, boolean timedOut) {
        RankRecord rank(int r) {
            return ranks.get(r);
        }

        Object output(String name, int rank) {
            return ranks.get(rank).outputs.get(name);
        }

        /** The only rank that faulted (not just aborted). */
        RankFault singleFault() {
            List<RankFault> faults = ranks.stream().map(RankRecord::fault).filter(f -> f != null).toList();
            if (faults.size() != 1) {
                throw new AssertionError("expected one faulting rank, got " + faults + "; failures: " + failures());
            }
            return faults.get(0);
        }

        /**
         * The fault of a workflow every rank of which meets the same one: the lowest rank that faulted. Which ranks
         * fault is a race (the first to fail aborts the domain, and a rank not yet at the fault is only aborted), so a
         * test of the fault must not name one.
         */
        RankFault anyFault() {
            return ranks.stream().map(RankRecord::fault).filter(f -> f != null).findFirst()
                    .orElseThrow(() -> new AssertionError("no rank faulted; failures: " + failures()));
        }

        int faultingRank() {
            singleFault();
            return ranks.stream().filter(r -> r.fault() != null).findFirst().orElseThrow().rank;
        }

        /** Asserts every rank ended without failure. */
        Result succeeded() {
            if (timedOut || ranks.stream().anyMatch(r -> r.failure != null)) {
                throw new AssertionError((timedOut ? "timed out; " : "") + "failures: " + failures(), firstFailure());
            }
            return this;
        }

        private Throwable firstFailure() {
            return ranks.stream().map(r -> r.failure).filter(f -> f != null).findFirst().orElse(null);
        }

        String failures() {
            Map<Integer, String> m = new LinkedHashMap<>();
            for (RankRecord r : ranks) {
                if (r.failure != null) {
                    m.put(r.rank, String.valueOf(r.failure));
                }
            }
            return m.toString();
        }
    }

    private InterpreterHarness() {
    }

    /** Checks and compiles {@code interp/NAME} with the given params (it must check clean). */
    static MpflCompiler.CheckResult compile(String name, Map<String, String> params) {
        Path file;
        try {
            file = Path.of(InterpreterHarness.class.getResource("/interp/" + name).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new AssertionError("no test document interp/" + name, e);
        }
        return compile(file, params);
    }

    /** Checks and compiles the document {@code file} (it must check clean). */
    static MpflCompiler.CheckResult compile(Path file, Map<String, String> params) {
        String name = file.getFileName().toString();
        MpflCompiler.CheckResult r = new MpflCompiler().check(file, name, params);
        if (!r.ok()) {
            throw new AssertionError(name + " does not check clean:\n" + r.diagnostics().sorted());
        }
        return r;
    }

    /** Runs the document {@code file} (anywhere), its kernel libraries next to it. */
    static Result run(Path file, Map<String, String> params, Duration limit) {
        return run(compile(file, params), file.getParent(), params, limit, r -> null);
    }

    static Result run(String name, Map<String, String> params, Duration limit) {
        return run(name, params, limit, r -> null);
    }

    /** Like {@link #run(String, Map, Duration)}, each rank resuming from what {@code resume} gives it ({@code null}: from the start). */
    static Result run(String name, Map<String, String> params, Duration limit,
                      java.util.function.IntFunction<RunRequest.Resume> resume) {
        return run(compile(name, params), documentDirectory(name), params, limit, resume);
    }

    private static Result run(MpflCompiler.CheckResult checked, Path directory, Map<String, String> params, Duration limit,
                              java.util.function.IntFunction<RunRequest.Resume> resume) {
        IrWorkflow workflow = checked.workflow();
        Map<String, Integer> counts = ParamValues.rankCounts(workflow, checked.paramValues(), new Diagnostics());
        List<RunRequest.ProcessSlice> slices = new ArrayList<>();
        for (IrProcess p : workflow.processes()) {
            slices.add(new RunRequest.ProcessSlice(p.name(), p.service(), counts.get(p.name())));
        }
        // params travel as texts, as from the command line; the interpreter types them
        KernelLibraries kernels = KernelLibraries.inDirectory(directory, workflow.libraries());
        return run(workflow, slices, Collections.unmodifiableMap(new HashMap<String, Object>(params)), limit, resume, kernels);
    }

    private static Path documentDirectory(String name) {
        try {
            return Path.of(InterpreterHarness.class.getResource("/interp/" + name).toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** Runs every rank of the workflow until all ended or {@code limit} passed (then the domain is aborted). */
    static Result run(IrWorkflow workflow, List<RunRequest.ProcessSlice> slices, Map<String, Object> params, Duration limit) {
        return run(workflow, slices, params, limit, r -> null);
    }

    static Result run(IrWorkflow workflow, List<RunRequest.ProcessSlice> slices, Map<String, Object> params, Duration limit,
                      java.util.function.IntFunction<RunRequest.Resume> resume) {
        return run(workflow, slices, params, limit, resume, KernelLibraries.none());
    }

    static Result run(IrWorkflow workflow, List<RunRequest.ProcessSlice> slices, Map<String, Object> params, Duration limit,
                      java.util.function.IntFunction<RunRequest.Resume> resume, KernelLibraries kernels) {
        int size = slices.stream().mapToInt(RunRequest.ProcessSlice::ranks).sum();
        try (MessagingHost host = MessagingHost.start("interp-" + DomainToken.generate().substring(0, 6), null, 0, null,
                MessagingSettings.fromSystemProperties(), null)) {
            String domainId = DomainToken.generate();
            String token = DomainToken.generate();
            List<Endpoint> endpoints = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                endpoints.add(host.endpoint("inproc://rank/" + r));
            }
            Map<String, InterpretedProgram> programs = new HashMap<>();
            List<RankRecord> records = new ArrayList<>();
            List<CompletableFuture<Void>> ends = new ArrayList<>();
            // open every rank before starting any: a rank that fails at once aborts the domain, and a
            // rank opened after that abort would be refused by the registry
            List<RankInstance> instances = new ArrayList<>();
            List<InterpretedProgram> programOfRank = new ArrayList<>();
            int rank = 0;
            for (RunRequest.ProcessSlice slice : slices) {
                InterpretedProgram program = programs.computeIfAbsent(slice.name(),
                        n -> InterpretedProgram.of(workflow, n, InterpreterHarness.class.getClassLoader()).withKernels(kernels));
                for (int i = 0; i < slice.ranks(); i++, rank++) {
                    RankInstance instance = host.registry().open(domainId, rank, token, endpoints, host.selector(), "local");
                    instance.allowObjectTypes(program.objectTypes()); // as the service host does
                    instances.add(instance);
                    programOfRank.add(program);
                }
            }
            for (int r = 0; r < size; r++) {
                RankInstance instance = instances.get(r);
                InterpretedProgram program = programOfRank.get(r);
                RankRecord record = new RankRecord(r, instance, slices, params);
                record.resume = resume.apply(r);
                records.add(record);
                CompletableFuture<Void> end = new CompletableFuture<>();
                ends.add(end);
                Thread t = new Thread(() -> {
                    try {
                        new RankInterpreter(program).run(record);
                        instance.finish();
                    } catch (Throwable e) {
                        record.failure = e;
                        instance.close();
                        if (!(e instanceof DomainAbortedException)) {
                            host.registry().abortLocally(domainId, "rank " + record.rank + " failed: " + e);
                        }
                    } finally {
                        record.endedNanos = System.nanoTime();
                        end.complete(null);
                    }
                }, "interp-rank-" + r);
                t.setDaemon(true);
                t.start();
            }
            boolean timedOut = false;
            try {
                CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                timedOut = true;
                host.registry().abortLocally(domainId, "test time limit");
                try {
                    CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
                } catch (Exception stillStuck) {
                    throw new AssertionError("ranks still running 5 s after the abort", stillStuck);
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return new Result(records, timedOut);
        }
    }
}
