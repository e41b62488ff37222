package org.mpfl.engine.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The MolDyn peer, MPJ Express 0.44 ({@code shared/peers/run-mpj-moldyn.sh}): run in the same
 * invocation where MPJ Express is installed, else read from the peers' committed results. The
 * peers' directory is never written to: the script and its MolDyn source are copied into a private
 * temporary directory and run from there (the script builds next to itself), with {@code RES_DIR}
 * pointing where the caller wants the CSV.
 */
final class MpjMolDyn {
    static final Path MPJ_JAR = Path.of("/usr/share/mpj/lib/mpj.jar");
    private static final long RUN_LIMIT_MINUTES = 30;

    /** One line of {@code mpj-moldyn.csv}. */
    record Row(String device, int p, int mm, double totalS, double commS, double ek, double deviation, String validation) {
    }

    private MpjMolDyn() {
    }

    static boolean installed() {
        return Files.isRegularFile(MPJ_JAR);
    }

    /** The peers' directory: {@code $MPFL_PEERS}, else {@code ../shared/peers} next to the project, else {@code /work/shared/peers}. */
    static Path peersDir() {
        String env = System.getenv("MPFL_PEERS");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        String home = System.getProperty("mpfl.home");
        if (home != null) {
            Path p = Path.of(home).toAbsolutePath().getParent().resolve("shared/peers");
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        return Path.of("/work/shared/peers");
    }

    /** The peers' committed results (idle machine), or an empty list. */
    static List<Row> committed() throws IOException {
        Path csv = peersDir().resolve("results/mpj-moldyn.csv");
        return Files.isRegularFile(csv) ? parse(csv) : List.of();
    }

    /**
     * Runs the peer for these sizes and rank counts; the CSV (and logs) go to {@code resultsDir}.
     *
     * @param quietWait seconds the script may wait for an idle machine before each run
     */
    static List<Row> run(List<Integer> sizes, List<Integer> ranks, Path resultsDir, int quietWait, PrintStream progress)
            throws IOException, InterruptedException {
        Path peers = peersDir();
        Path copy = Files.createTempDirectory("mpfl-mpj-moldyn-");
        try {
            Files.createDirectories(copy.resolve("mpj"));
            Files.copy(peers.resolve("run-mpj-moldyn.sh"), copy.resolve("run-mpj-moldyn.sh"));
            Files.copy(peers.resolve("mpj/MolDyn.java"), copy.resolve("mpj/MolDyn.java"));
            Files.createDirectories(resultsDir);
            ProcessBuilder pb = new ProcessBuilder("bash", copy.resolve("run-mpj-moldyn.sh").toString())
                    .redirectErrorStream(true).redirectOutput(resultsDir.resolve("run-mpj-moldyn.out").toFile());
            pb.environment().put("SIZES", join(sizes));
            pb.environment().put("PROCS", join(ranks));
            pb.environment().put("RES_DIR", resultsDir.toAbsolutePath().toString());
            pb.environment().put("QUIET_WAIT", Integer.toString(quietWait));
            progress.println("[bench moldyn] MPJ Express peer: " + copy.resolve("run-mpj-moldyn.sh") + " (output in "
                    + resultsDir.resolve("run-mpj-moldyn.out") + ")");
            Process proc = pb.start();
            try {
                if (!proc.waitFor(RUN_LIMIT_MINUTES, TimeUnit.MINUTES)) {
                    throw new IOException("the MPJ Express MolDyn run did not end within " + RUN_LIMIT_MINUTES + " min");
                }
            } finally {
                if (proc.isAlive()) {
                    proc.descendants().forEach(ProcessHandle::destroyForcibly);
                    proc.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            Path csv = resultsDir.resolve("mpj-moldyn.csv");
            if (!Files.isRegularFile(csv)) {
                throw new IOException("the MPJ Express MolDyn run (exit " + proc.exitValue() + ") wrote no " + csv);
            }
            return parse(csv);
        } finally {
            BenchCommands.deleteTree(copy);
        }
    }

    private static String join(List<Integer> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(" "));
    }

    /** peer,device,nprocs,mm,particles,total_s,comm_s,ek,dev,validation,oversubscribed */
    static List<Row> parse(Path csv) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(csv, StandardCharsets.UTF_8)) {
            String[] f = line.split(",");
            if (f.length < 10 || f[0].equals("peer")) {
                continue;
            }
            try {
                rows.add(new Row(f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3]), Double.parseDouble(f[5]),
                        Double.parseDouble(f[6]), Double.parseDouble(f[7]), Double.parseDouble(f[8]), f[9]));
            } catch (NumberFormatException e) {
                // a malformed line (an interrupted run) is left out
            }
        }
        return rows;
    }
}
