package org.mpfl.bench.workflow;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.mpfl.bench.PeerResults;
import org.mpfl.bench.PeerRuns;

/**
 * The MolDyn peer, MPJ Express 0.44 ({@code shared/peers/run-mpj-moldyn.sh}): run in the same
 * invocation where MPJ Express is installed, else read from the peers' committed results. Locating
 * the peers, running their script (from a private temporary copy: the peers' directory is never
 * written to; every process it leaves, the MPJ daemon included, is stopped) and reading their CSV
 * are the runtime's {@link PeerRuns} and {@link PeerResults}, shared with {@code bench p2p} and
 * {@code bench collectives}; {@code RES_DIR} points where the caller wants the CSV.
 */
final class MpjMolDyn {
    static final Path MPJ_JAR = PeerRuns.MPJ_JAR;
    private static final Duration RUN_LIMIT = Duration.ofMinutes(30);

    /** One line of {@code mpj-moldyn.csv}. */
    record Row(String device, int p, int mm, double totalS, double commS, double ek, double deviation, String validation) {
    }

    private MpjMolDyn() {
    }

    static boolean installed() {
        return PeerRuns.mpjInstalled();
    }

    /** The peers' directory ({@link PeerRuns#peersDir()}: {@code $MPFL_PEERS}, else {@code ../shared/peers} next to the project). */
    static Path peersDir() {
        return PeerRuns.peersDir();
    }

    /** The peers' committed results (idle machine), or an empty list. */
    static List<Row> committed(Path peers) throws IOException {
        Path csv = peers.resolve("results/mpj-moldyn.csv");
        return Files.isRegularFile(csv) ? parse(csv) : List.of();
    }

    /**
     * Runs the peer for these sizes and rank counts; the CSV (and logs) go to {@code resultsDir}.
     *
     * @param quietWait seconds the script may wait for an idle machine before each run
     */
    static List<Row> run(Path peers, List<Integer> sizes, List<Integer> ranks, Path resultsDir, int quietWait, PrintStream progress)
            throws IOException, InterruptedException {
        Files.createDirectories(resultsDir);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SIZES", join(sizes));
        env.put("PROCS", join(ranks));
        env.put("RES_DIR", resultsDir.toAbsolutePath().toString());
        env.put("QUIET_WAIT", Integer.toString(quietWait));
        int exit = PeerRuns.runScript(peers, "run-mpj-moldyn.sh", List.of("mpj/MolDyn.java"), env, RUN_LIMIT, progress);
        Path csv = resultsDir.resolve("mpj-moldyn.csv");
        if (!Files.isRegularFile(csv)) {
            throw new IOException("the MPJ Express MolDyn run (exit " + exit + ") wrote no " + csv);
        }
        return parse(csv);
    }

    private static String join(List<Integer> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(" "));
    }

    /** peer,device,nprocs,mm,particles,total_s,comm_s,ek,dev,validation,oversubscribed */
    static List<Row> parse(Path csv) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (Map<String, String> m : PeerResults.readRows(csv)) {
            try {
                rows.add(new Row(m.get("device"), Integer.parseInt(m.get("nprocs")), Integer.parseInt(m.get("mm")),
                        Double.parseDouble(m.get("total_s")), Double.parseDouble(m.get("comm_s")), Double.parseDouble(m.get("ek")),
                        Double.parseDouble(m.get("dev")), m.get("validation")));
            } catch (RuntimeException e) {
                // a malformed line (an interrupted run) is left out
            }
        }
        return rows;
    }
}
