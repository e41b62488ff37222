package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.ir.settings.Setting;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.bench.BenchPlot;
import org.mpfl.ir.files.FileTrees;

/**
 * The measurement of {@code mpflc bench lab}, in a JVM of its own inside the engine's network namespace
 * (started by {@link LabBenchCommand}, which made the lab and removes it): starts the engine on its lab
 * address and the hosts in their namespaces ({@link BenchCluster} with a {@link BenchCluster.Spread}),
 * runs {@link ScaleBenchmark} and {@link MediatorBenchmark} on them and prints the result. Its one
 * argument is the plan the command wrote: the command's own arguments and the lab's nodes.
 */
public final class LabInside {
    private static final String LABEL = "[bench lab]";

    private LabInside() {
    }

    /** Writes the plan: {@code {"args":[…],"engine":ADDR,"hosts":[{"netns","address"}…]}}. */
    static void writePlan(Path plan, List<String> args, LabNetwork lab) throws java.io.IOException {
        List<Map<String, String>> hosts = new ArrayList<>();
        for (LabNetwork.Node n : lab.hosts()) {
            hosts.add(Map.of("netns", n.netns(), "address", n.address()));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("args", args);
        m.put("engine", lab.engine().address());
        m.put("hosts", hosts);
        Files.writeString(plan, new ObjectMapper().writeValueAsString(m), StandardCharsets.UTF_8);
    }

    /** The command line of this JVM inside {@code engine}'s namespace: this class path, the host CDS archive, mpfl.home and the temporary directory passed on. */
    static List<String> command(LabNetwork.Node engine, Path plan) {
        List<String> cmd = new ArrayList<>(engine.inside());
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx2g", "-XX:+UseParallelGC", HostProcesses.tempDirectoryOption()));
        for (Setting<String> property : List.of(CliSettings.HOME, ProtocolSettings.HOST_CDS_ARCHIVE)) {
            String v = property.raw();
            if (v != null) {
                cmd.add("-D" + property.name() + "=" + v);
            }
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), LabInside.class.getName(), plan.toString()));
        return cmd;
    }

    public static void main(String[] argv) {
        PrintStream err = System.err;
        // stdin is a pipe of the command that made the lab: when it closes, that command is gone, and so is
        // the reason to measure (its hosts end with this JVM: their stdin closes in turn)
        Thread parent = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing is sent; wait for the end
                }
            } catch (java.io.IOException e) {
                // closed
            }
            err.println("mpflc bench lab: the command that made the lab is gone; stopping");
            System.exit(1);
        }, "lab-parent-watch");
        parent.setDaemon(true);
        parent.start();
        try {
            run(Path.of(argv[0]), System.out, err);
            System.exit(0);
        } catch (Exception e) {
            err.println("mpflc bench lab: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            if (CliSettings.DEBUG.given().isPresent()) {
                e.printStackTrace(err);
            }
            System.exit(1);
        }
    }

    static void run(Path planFile, PrintStream out, PrintStream err) throws Exception {
        JsonNode plan = new ObjectMapper().readTree(Files.readString(planFile, StandardCharsets.UTF_8));
        List<String> args = new ArrayList<>();
        plan.path("args").forEach(a -> args.add(a.asText()));
        LabBenchCommand.Options o = LabBenchCommand.parse(args);
        List<List<String>> prefixes = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (JsonNode h : plan.path("hosts")) {
            prefixes.add(List.of("ip", "netns", "exec", h.path("netns").asText()));
            addresses.add(h.path("address").asText());
        }
        BenchCluster.Spread spread = new BenchCluster.Spread(plan.path("engine").asText(), prefixes, addresses);
        Path work = Files.createTempDirectory("mpfl-bench-lab-inside-");
        // the command that made the lab gone (this JVM's System.exit) or a SIGTERM: no finally below runs, and the
        // engine's store alone can hold most of a gigabyte
        java.util.concurrent.atomic.AtomicReference<BenchCluster> running = new java.util.concurrent.atomic.AtomicReference<>();
        Thread atExit = new Thread(() -> {
            BenchCluster c = running.get();
            if (c != null) {
                c.close();
            }
            FileTrees.deleteQuietly(work);
        }, "lab-inside-exit");
        Runtime.getRuntime().addShutdownHook(atExit);
        try {
            err.println(LABEL + " starting the engine at " + spread.engineAddress() + " and " + spread.hosts()
                    + " service hosts in their namespaces " + BenchCommands.load());
            // capacity 1: ranks round robin over the hosts at every p (rank r on host r mod N), as one rank per node
            try (BenchCluster cluster = BenchCluster.start(work.resolve("engine"), spread.hosts(), 1, o.hostJvmArgs(), "auto", spread)) {
                running.set(cluster);
                err.println(LABEL + " part A: ring and allreduce loop at " + o.ranks() + " ranks");
                List<ScaleBenchmark.Result> scale = new ScaleBenchmark(o.ranks(), o.iterations(), o.repeat(), err, LABEL)
                        .run(cluster, work);
                err.println(LABEL + " part B: direct messaging vs the mediator at p = " + o.mediatorRanks());
                List<MediatorBenchmark.Result> mediator = new MediatorBenchmark(o.mediatorRanks(), o.mediatorIterations(), o.doubles(),
                        spread.hosts(), 1, o.hostJvmArgs(), err).label(LABEL).repeats(o.repeat()).warmupSeconds(o.warmupSeconds())
                        .run(cluster, work);
                if (o.plot() != null) {
                    plot(scale, mediator, o.plot());
                    err.println(LABEL + " plot written to " + o.plot());
                }
                if (o.json()) {
                    out.println(LabBenchCommand.toJson(o, scale, mediator));
                } else {
                    LabBenchCommand.printTable(o, scale, mediator, out);
                }
                out.flush();
            }
        } finally {
            FileTrees.deleteQuietly(work);
            try {
                Runtime.getRuntime().removeShutdownHook(atExit);
            } catch (IllegalStateException exiting) {
                // the hook runs or ran: it deletes what this deletes
            }
        }
    }

    /** Part A's times and memory against the rank count, part B's run times against p. */
    static void plot(List<ScaleBenchmark.Result> scale, List<MediatorBenchmark.Result> mediator, Path png) throws java.io.IOException {
        List<double[]> startup = new ArrayList<>();
        List<double[]> run = new ArrayList<>();
        List<double[]> memory = new ArrayList<>();
        for (ScaleBenchmark.Result r : scale) {
            startup.add(new double[] {r.p(), r.startupMs()});
            run.add(new double[] {r.p(), r.runMs()});
            memory.add(new double[] {r.p(), r.kibPerRank()});
        }
        List<double[]> direct = new ArrayList<>();
        List<double[]> mediated = new ArrayList<>();
        for (MediatorBenchmark.Result r : mediator) {
            direct.add(new double[] {r.p(), r.directMs()});
            mediated.add(new double[] {r.p(), r.mediatorMs()});
        }
        BenchPlot.writePanels(List.of(
                new BenchPlot.Panel("Scale: start-up and run (ms, medians)", "ranks", List.of(
                        new BenchPlot.Line("start-up: accepted -> all ranks running", startup, false),
                        new BenchPlot.Line("run: ring + allreduce loop, creation to end", run, false))),
                new BenchPlot.Panel("Host memory per rank (KiB, VmRSS)", "ranks", List.of(
                        new BenchPlot.Line("peak during run - before, per rank", memory, false))),
                new BenchPlot.Panel("Direct messaging vs mediator on shaped links (ms)", "ranks p", List.of(
                        new BenchPlot.Line("MPFL direct messaging (engine run)", direct, false),
                        new BenchPlot.Line("engine mediator mode (BPEL-style)", mediated, false)))), png);
    }
}
