package org.mpfl.bench.workflow;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.mpfl.bench.PeerRuns;
import org.mpfl.ir.files.FileTrees;

/**
 * The peers' first run, measured now: {@code <peers>/run-startup.sh} (a 4-process ring from the command
 * line to the prompt: MPJ Express multicore and niodev, Open MPI over TCP and shared memory), run from a
 * private copy by {@link PeerRuns#runScript}, which also stops everything it leaves behind. The script
 * prints one {@code startup,<variant>,<seconds>} line per timed run; a failed variant prints none.
 */
final class PeerStartup {
    static final String SCRIPT = "run-startup.sh";
    /** The script compiles two programs and starts MPJ Express's daemon besides its timed runs. */
    private static final Duration LIMIT = Duration.ofMinutes(10);

    private PeerStartup() {
    }

    /** One timed peer run. */
    record Time(String variant, double seconds) {
    }

    /** Runs the script for {@code runs} timed runs per variant; the times it printed, in its order. */
    static List<Time> measure(Path peers, int runs, PrintStream progress) throws IOException, InterruptedException {
        Path res = Files.createTempDirectory("mpfl-peer-startup-");
        try {
            int exit = PeerRuns.runScript(peers, SCRIPT, List.of(), Map.of("RUNS", Integer.toString(runs), "RES_DIR", res.toString()),
                    LIMIT, progress);
            List<Time> times = parse(Files.readAllLines(res.resolve(SCRIPT.replace(".sh", "") + ".out")));
            if (times.isEmpty()) {
                throw new IOException(SCRIPT + " (exit " + exit + ") timed no peer run; its output is above");
            }
            return times;
        } finally {
            FileTrees.deleteQuietly(res);
        }
    }

    /** The {@code startup,<variant>,<seconds>} lines of the script's output. */
    static List<Time> parse(List<String> lines) {
        List<Time> out = new ArrayList<>();
        for (String l : lines) {
            String[] f = l.trim().split(",");
            if (f.length == 3 && f[0].equals("startup")) {
                try {
                    out.add(new Time(f[1], Double.parseDouble(f[2])));
                } catch (NumberFormatException e) {
                    // "FAILED: …" in place of a time: the variant did not run
                }
            }
        }
        return out;
    }
}
