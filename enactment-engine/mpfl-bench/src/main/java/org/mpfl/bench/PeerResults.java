package org.mpfl.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The peers' results ({@code ../shared/peers/}: MPJ Express, Open MPI) as the benchmarks compare
 * with them: the one reader of the peers' CSV format, for numbers measured in the same run (the
 * scripts' {@code RES_DIR}, see {@link PeerRuns}) and for the stored ones ({@code peers/results/}).
 *
 * <p>The peers' CSVs have a header line and one line per case: {@code <peer>-pingpong.csv}
 * ({@code peer,mode,type,N,bytes,iters,rtt_median_us,…}), {@code <peer>-pingkpong.csv}
 * ({@code …,per_msg_us,…}), {@code <peer>-collectives.csv} ({@code peer,mode,type,op,p,…,N,bytes,iters,median_us,…}),
 * and others such as {@code mpj-moldyn.csv}, read column by name with {@link #readRows}.
 *
 * @param rows    every case read, of every peer
 * @param sources per peer ({@code mpj}, {@code ompi}), where its numbers come from, e.g.
 *                {@code "measured in this run"} or {@code "stored reference (…/results)"}
 */
public record PeerResults(List<Row> rows, Map<String, String> sources) {
    /** Benchmark name of the PingPong rows (round trip, µs). */
    public static final String PINGPONG = "pingpong";
    /** Benchmark name of the Ping*Pong rows (time per message, µs). */
    public static final String PINGKPONG = "pingkpong";

    /** Which peer, and its mode (device) that an MPFL transport is compared with. */
    public record Peer(String peer, String mode) {
        /** {@code "MPJ Express niodev"}, {@code "Open MPI tcp"}. */
        public String label() {
            return (peer.equals("mpj") ? "MPJ Express" : peer.equals("ompi") ? "Open MPI" : peer) + " " + mode;
        }
    }

    /**
     * One case: {@code bench} is {@link #PINGPONG}, {@link #PINGKPONG} or the collective operation
     * ({@code bcast}, {@code gather}, {@code allreduce}, {@code barrier}); {@code us} the median
     * round trip, the time per message, or the median max-over-ranks time; {@code p} = 2 for the
     * point-to-point benchmarks; {@code type} {@code double}, {@code object} or {@code none} (barrier).
     */
    public record Row(String peer, String mode, String type, String bench, int p, int n, long bytes, double us) {
    }

    public PeerResults {
        rows = List.copyOf(rows);
        sources = Map.copyOf(sources);
    }

    /** No results. */
    public static PeerResults empty() {
        return new PeerResults(List.of(), Map.of());
    }

    /**
     * The {@code <peer>-pingpong.csv}, {@code -pingkpong.csv} and {@code -collectives.csv} in {@code dir}
     * that exist; {@code source} says where they come from.
     */
    public static PeerResults read(Path dir, String peer, String source) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String table : List.of(PINGPONG, PINGKPONG, "collectives")) {
            Path csv = dir.resolve(peer + "-" + table + ".csv");
            if (Files.isRegularFile(csv)) {
                rows.addAll(readCsv(csv));
            }
        }
        return new PeerResults(rows, rows.isEmpty() ? Map.of() : Map.of(peer, source));
    }

    /** These results and those of {@code other} (whose sources win for a peer in both). */
    public PeerResults with(PeerResults other) {
        List<Row> all = new ArrayList<>(rows);
        all.addAll(other.rows());
        Map<String, String> src = new LinkedHashMap<>(sources);
        src.putAll(other.sources());
        return new PeerResults(all, src);
    }

    /** Only the rows of {@code peer} replaced by {@code replacement}'s (a live run replacing the stored numbers). */
    public PeerResults replacing(String peer, PeerResults replacement) {
        List<Row> kept = new ArrayList<>();
        for (Row r : rows) {
            if (!r.peer().equals(peer)) {
                kept.add(r);
            }
        }
        Map<String, String> src = new LinkedHashMap<>(sources);
        src.remove(peer);
        return new PeerResults(kept, src).with(replacement);
    }

    /** Where {@code peer}'s numbers come from, or {@code "not available"}. */
    public String source(String peer) {
        return sources.getOrDefault(peer, "not available");
    }

    /**
     * The time of {@code bench} for {@code double[]} messages (barrier: any type and N), µs, or
     * {@code NaN} where the peer did not measure that case.
     */
    public double us(Peer peer, String bench, int p, int n) {
        for (Row r : rows) {
            if (r.peer().equals(peer.peer()) && r.mode().equals(peer.mode()) && r.bench().equals(bench) && r.p() == p
                    && (bench.equals("barrier") || (r.n() == n && r.type().equals("double")))) {
                return r.us();
            }
        }
        return Double.NaN;
    }

    /** The sizes N that {@code peer} measured for {@code bench} at p, ascending. */
    public List<Integer> sizes(Peer peer, String bench, int p) {
        return rows.stream().filter(r -> r.peer().equals(peer.peer()) && r.mode().equals(peer.mode())
                        && r.bench().equals(bench) && r.p() == p && r.type().equals("double"))
                .map(Row::n).distinct().sorted().toList();
    }

    /**
     * One of the peers' CSVs as typed rows; the kind of table is told by its header
     * ({@code rtt_median_us}: PingPong, {@code per_msg_us}: Ping*Pong, {@code op}: collectives).
     * Lines that do not parse (an interrupted run) are left out.
     */
    public static List<Row> readCsv(Path csv) throws IOException {
        List<Row> out = new ArrayList<>();
        for (Map<String, String> m : readRows(csv)) {
            try {
                String bench;
                double us;
                int p = 2;
                if (m.containsKey("rtt_median_us")) {
                    bench = PINGPONG;
                    us = Double.parseDouble(m.get("rtt_median_us"));
                } else if (m.containsKey("per_msg_us")) {
                    bench = PINGKPONG;
                    us = Double.parseDouble(m.get("per_msg_us"));
                } else if (m.containsKey("op") && m.containsKey("median_us")) {
                    bench = m.get("op");
                    us = Double.parseDouble(m.get("median_us"));
                    p = Integer.parseInt(m.get("p"));
                } else {
                    continue;
                }
                out.add(new Row(m.get("peer"), m.get("mode"), m.get("type"), bench, p, Integer.parseInt(m.get("N")),
                        Long.parseLong(m.get("bytes")), us));
            } catch (RuntimeException e) {
                // a malformed or cut line is left out
            }
        }
        return out;
    }

    /**
     * Any of the peers' CSVs, each line as column name → value (header order); lines with fewer
     * fields than the header (a run cut short) are left out.
     */
    public static List<Map<String, String>> readRows(Path csv) throws IOException {
        return parseRows(Files.readAllLines(csv, StandardCharsets.UTF_8));
    }

    static List<Map<String, String>> parseRows(List<String> lines) {
        List<Map<String, String>> out = new ArrayList<>();
        String[] header = null;
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split(",", -1);
            if (header == null) {
                header = f;
                continue;
            }
            if (f.length < header.length) {
                continue;
            }
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < header.length; i++) {
                m.put(header[i].trim(), f[i].trim());
            }
            out.add(m);
        }
        return out;
    }
}
