package org.mpfl.runtime.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.mpfl.runtime.api.ReduceOp;

/**
 * Every collective and every algorithm against a sequential reference computed here: p = 1..9
 * (non-powers of two included), every root, lengths 0, 1 and small, contributions of different
 * lengths, scalars, strings and booleans; a few runs with 1 MB per rank; and 1 000 back-to-back
 * allreduces on 8 ranks. Subclasses say where the ranks run.
 */
abstract class CollectiveSuite {
    static final int[] LENGTHS = {0, 1, 37};
    static final int MAX_P = 9;

    /** Runs {@code body} on p ranks and returns each rank's result. */
    protected abstract Object[] run(int p, Function<Coll, Object> body);

    /** Communicator sizes to test (subclasses over slower transports may use fewer). */
    protected int[] sizes() {
        int[] out = new int[MAX_P];
        for (int i = 0; i < MAX_P; i++) {
            out[i] = i + 1;
        }
        return out;
    }

    /** Communicator sizes of the 1 MB test. */
    protected int[] bigSizes() {
        return new int[] {3, 8};
    }

    /**
     * Every name the table of collective algorithms accepts for {@code op} ({@code auto}, the
     * algorithms, the aliases), so that a name the table has and the runtime does not dispatch fails here.
     */
    static List<String> withAuto(String op) {
        List<String> out = new ArrayList<>();
        out.add("auto");
        out.addAll(Collectives.algorithms(op));
        out.addAll(new java.util.TreeSet<>(org.mpfl.ir.semantics.CollectiveAlgorithms.ofOperation(op).orElseThrow().aliases().keySet()));
        return out;
    }

    // ------------------------------------------------------------------------------------ data

    static long v(int rank, int i) {
        return ((rank * 31L + i * 7L) % 11) - 3;
    }

    /** Values used for a given operator: small factors for prod, 0/1 for the logical ones. */
    static long v(ReduceOp op, int rank, int i) {
        return switch (op) {
            case PROD -> (rank + i) % 3 + 1;
            case LAND, LOR -> (rank * 7 + i * 3) % 4 == 0 ? 0 : 1;
            case BAND, BOR -> (rank * 37L + i * 11L) & 0xFF;
            default -> v(rank, i);
        };
    }

    static double[] doubles(int rank, int len) {
        double[] a = new double[len];
        for (int i = 0; i < len; i++) {
            a[i] = v(rank, i) + 0.5;
        }
        return a;
    }

    static Object array(String type, ReduceOp op, int rank, int len) {
        switch (type) {
            case "int": {
                int[] a = new int[len];
                for (int i = 0; i < len; i++) {
                    a[i] = (int) v(op, rank, i);
                }
                return a;
            }
            case "long": {
                long[] a = new long[len];
                for (int i = 0; i < len; i++) {
                    a[i] = v(op, rank, i) * 1_000_000_007L;
                }
                return a;
            }
            default: {
                double[] a = new double[len];
                for (int i = 0; i < len; i++) {
                    a[i] = v(op, rank, i);
                }
                return a;
            }
        }
    }

    static long refLong(ReduceOp op, long a, long b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case LAND -> (a != 0 && b != 0) ? 1 : 0;
            case LOR -> (a != 0 || b != 0) ? 1 : 0;
            case BAND -> a & b;
            case BOR -> a | b;
        };
    }

    /** Sequential reduction of ranks [from, to) in rank order. */
    static Object reference(String type, ReduceOp op, int from, int to, int len) {
        long[] acc = null;
        for (int r = from; r < to; r++) {
            Object a = array(type, op, r, len);
            long[] x = new long[len];
            for (int i = 0; i < len; i++) {
                x[i] = a instanceof int[] ia ? ia[i] : a instanceof long[] la ? la[i] : (long) ((double[]) a)[i];
            }
            if (acc == null) {
                acc = x;
            } else {
                for (int i = 0; i < len; i++) {
                    acc[i] = refLong(op, acc[i], x[i]);
                }
            }
        }
        switch (type) {
            case "int": {
                int[] o = new int[len];
                for (int i = 0; i < len; i++) {
                    o[i] = (int) acc[i];
                }
                return o;
            }
            case "long":
                return acc;
            default: {
                double[] o = new double[len];
                for (int i = 0; i < len; i++) {
                    o[i] = acc[i];
                }
                return o;
            }
        }
    }

    static List<String> typesFor(ReduceOp op) {
        return (op == ReduceOp.BAND || op == ReduceOp.BOR) ? List.of("int", "long") : List.of("int", "long", "double");
    }

    static void assertSameArray(Object expected, Object actual, String what) {
        assertTrue(actual != null, what + ": null result");
        assertEquals(expected.getClass(), actual.getClass(), what + ": type");
        if (expected instanceof int[] e) {
            assertArrayEquals(e, (int[]) actual, what);
        } else if (expected instanceof long[] e) {
            assertArrayEquals(e, (long[]) actual, what);
        } else if (expected instanceof double[] e) {
            assertArrayEquals(e, (double[]) actual, what);
        } else if (expected instanceof boolean[] e) {
            assertArrayEquals(e, (boolean[]) actual, what);
        } else if (expected instanceof byte[] e) {
            assertArrayEquals(e, (byte[]) actual, what);
        } else {
            assertEquals(expected, actual, what);
        }
    }

    private void forSizes(Function<Integer, Function<Coll, Object>> bodyForP) {
        for (int p : sizes()) {
            Object[] results = run(p, bodyForP.apply(p));
            for (Object r : results) {
                assertEquals("ok", r);
            }
        }
    }

    // ------------------------------------------------------------------------------------ tests

    @Test
    void broadcastEveryRootAlgorithmAndLength() {
        forSizes(p -> c -> {
            int me = c.rank();
            for (int root = 0; root < p; root++) {
                for (String alg : withAuto("bcast")) {
                    for (int len : LENGTHS) {
                        double[] expected = doubles(root + 100, len);
                        Object got = c.bcast(me == root ? expected.clone() : new double[3], root, alg);
                        assertSameArray(expected, got, "bcast p=" + p + " root=" + root + " " + alg + " len=" + len);
                    }
                    assertEquals(root * 10, c.bcast(me == root ? root * 10 : -1, root, alg));
                    assertEquals("from " + root, c.bcast(me == root ? "from " + root : null, root, alg));
                    int[] big = new int[5 * p + 3];
                    Arrays.fill(big, root);
                    assertSameArray(big, c.bcast(me == root ? big.clone() : null, root, alg), "bcast int[] " + alg);
                }
            }
            return "ok";
        });
    }

    @Test
    void scatterBlockDistribution() {
        forSizes(p -> c -> {
            int me = c.rank();
            for (int root = 0; root < p; root++) {
                for (String alg : withAuto("scatter")) {
                    for (int len : new int[] {0, 1, 37, 3 * p + 1}) {
                        int[] all = new int[len];
                        for (int i = 0; i < len; i++) {
                            all[i] = root * 1000 + i;
                        }
                        Object got = c.scatter(me == root ? all.clone() : null, root, alg);
                        int from = BlockDistribution.offset(len, p, me);
                        int to = BlockDistribution.offset(len, p, me + 1);
                        int extra = len % p;
                        assertEquals(len / p + (me < extra ? 1 : 0), to - from);
                        assertSameArray(Arrays.copyOfRange(all, from, to), got,
                                "scatter p=" + p + " root=" + root + " " + alg + " len=" + len);
                    }
                }
            }
            return "ok";
        });
    }

    @Test
    void gatherArraysOfDifferentLengthsScalarsStringsBooleans() {
        forSizes(p -> c -> {
            int me = c.rank();
            for (int root = 0; root < p; root++) {
                for (String alg : withAuto("gather")) {
                    String what = "gather p=" + p + " root=" + root + " " + alg;
                    Object arrays = c.gather(doubles(me, me % 3), root, alg);
                    Object ints = c.gather(me * 10, root, alg);
                    Object strings = c.gather("r" + me, root, alg);
                    Object bools = c.gather(me % 2 == 0, root, alg);
                    Object longs = c.gather(array("long", ReduceOp.SUM, me, 4), root, alg);
                    if (me != root) {
                        assertNull(arrays, what);
                        assertNull(ints, what);
                        assertNull(strings, what);
                        assertNull(bools, what);
                        assertNull(longs, what);
                        continue;
                    }
                    checkGathered(p, arrays, ints, strings, bools, longs, what);
                }
            }
            return "ok";
        });
    }

    static void checkGathered(int p, Object arrays, Object ints, Object strings, Object bools, Object longs, String what) {
        double[][] parts = new double[p][];
        long[][] longParts = new long[p][];
        int[] expInts = new int[p];
        boolean[] expBools = new boolean[p];
        List<String> expStrings = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            parts[r] = doubles(r, r % 3);
            longParts[r] = (long[]) array("long", ReduceOp.SUM, r, 4);
            expInts[r] = r * 10;
            expBools[r] = r % 2 == 0;
            expStrings.add("r" + r);
        }
        assertSameArray(concat(parts), arrays, what + " double[]");
        assertSameArray(expInts, ints, what + " int");
        assertEquals(expStrings, strings, what + " string");
        assertSameArray(expBools, bools, what + " boolean");
        long[] expLongs = new long[4 * p];
        for (int r = 0; r < p; r++) {
            System.arraycopy(longParts[r], 0, expLongs, 4 * r, 4);
        }
        assertSameArray(expLongs, longs, what + " long[]");
    }

    static double[] concat(double[][] parts) {
        int n = 0;
        for (double[] a : parts) {
            n += a.length;
        }
        double[] out = new double[n];
        int off = 0;
        for (double[] a : parts) {
            System.arraycopy(a, 0, out, off, a.length);
            off += a.length;
        }
        return out;
    }

    @Test
    void allgatherEveryAlgorithm() {
        forSizes(p -> c -> {
            int me = c.rank();
            for (String alg : withAuto("allgather")) {
                String what = "allgather p=" + p + " " + alg;
                Object arrays = c.allgather(doubles(me, me % 3), alg);
                Object ints = c.allgather(me * 10, alg);
                Object strings = c.allgather("r" + me, alg);
                Object bools = c.allgather(me % 2 == 0, alg);
                Object longs = c.allgather(array("long", ReduceOp.SUM, me, 4), alg);
                checkGathered(p, arrays, ints, strings, bools, longs, what);
            }
            return "ok";
        });
    }

    @Test
    void reduceEveryOperatorTypeRootAndAlgorithm() {
        forSizes(p -> c -> {
            int me = c.rank();
            for (int root = 0; root < p; root++) {
                for (String alg : withAuto("reduce")) {
                    for (ReduceOp op : ReduceOp.values()) {
                        for (String type : typesFor(op)) {
                            for (int len : LENGTHS) {
                                Object got = c.reduce(array(type, op, me, len), op, root, alg);
                                String what = "reduce p=" + p + " root=" + root + " " + alg + " " + op + " " + type + " len=" + len;
                                if (me == root) {
                                    assertSameArray(reference(type, op, 0, p, len), got, what);
                                } else {
                                    assertNull(got, what);
                                }
                            }
                        }
                    }
                    Object sum = c.reduce(me + 1, ReduceOp.SUM, root, alg);
                    Object and = c.reduce(me != 1, ReduceOp.LAND, root, alg);
                    Object max = c.reduce(me * 0.5, ReduceOp.MAX, root, alg);
                    if (me == root) {
                        assertEquals(p * (p + 1) / 2, sum);
                        assertEquals(p < 2, and);
                        assertEquals((p - 1) * 0.5, max);
                    }
                }
            }
            return "ok";
        });
    }

    @Test
    void allreduceEveryOperatorTypeAndAlgorithm() {
        forSizes(p -> c -> {
            int me = c.rank();
            for (String alg : withAuto("allreduce")) {
                for (ReduceOp op : ReduceOp.values()) {
                    for (String type : typesFor(op)) {
                        for (int len : new int[] {0, 1, 37, 64}) {
                            Object got = c.allreduce(array(type, op, me, len), op, alg);
                            assertSameArray(reference(type, op, 0, p, len), got,
                                    "allreduce p=" + p + " " + alg + " " + op + " " + type + " len=" + len);
                        }
                    }
                }
                assertEquals((long) p * (p - 1) / 2, c.allreduce((long) me, ReduceOp.SUM, alg));
                assertSameArray(reference("int", ReduceOp.SUM, 0, p, 37),
                        c.allreduce(array("int", ReduceOp.SUM, me, 37), ReduceOp.SUM, "bandwidth-optimal"), "alias");
                assertEquals(true, c.allreduce(me == p - 1, ReduceOp.LOR, alg));
                assertEquals(0.0, c.allreduce(me * 1.0, ReduceOp.MIN, alg));
            }
            return "ok";
        });
    }

    @Test
    void alltoallBlocksOfDifferentLengths() {
        forSizes(p -> c -> {
            int me = c.rank();
            for (String alg : withAuto("alltoall")) {
                int[] mine = new int[2 * p + me];
                for (int i = 0; i < mine.length; i++) {
                    mine[i] = me * 1000 + i;
                }
                Object got = c.alltoall(mine, alg);
                List<Integer> expected = new ArrayList<>();
                for (int src = 0; src < p; src++) {
                    int len = 2 * p + src;
                    for (int i = BlockDistribution.offset(len, p, me); i < BlockDistribution.offset(len, p, me + 1); i++) {
                        expected.add(src * 1000 + i);
                    }
                }
                assertSameArray(expected.stream().mapToInt(Integer::intValue).toArray(), got, "alltoall p=" + p + " " + alg);
            }
            return "ok";
        });
    }

    @Test
    void scanInclusive() {
        forSizes(p -> c -> {
            int me = c.rank();
            for (String alg : withAuto("scan")) {
                for (ReduceOp op : ReduceOp.values()) {
                    for (String type : typesFor(op)) {
                        for (int len : LENGTHS) {
                            Object got = c.scan(array(type, op, me, len), op, alg);
                            assertSameArray(reference(type, op, 0, me + 1, len), got,
                                    "scan p=" + p + " " + alg + " " + op + " " + type + " len=" + len);
                        }
                    }
                }
                assertEquals((me + 1) * (me + 2) / 2, c.scan(me + 1, ReduceOp.SUM, alg));
            }
            return "ok";
        });
    }

    @Test
    void barrierHoldsEveryRankBack() {
        for (int p : sizes()) {
            for (String alg : withAuto("barrier")) {
                AtomicInteger arrived = new AtomicInteger();
                int rounds = 20;
                run(p, c -> {
                    for (int k = 0; k < rounds; k++) {
                        arrived.incrementAndGet();
                        c.barrier(alg);
                        int seen = arrived.get();
                        assertTrue(seen >= (k + 1) * p, "barrier " + alg + " p=" + p + " round " + k + ": only " + seen + " arrivals");
                    }
                    return "ok";
                });
            }
        }
    }

    /** 1 MB per rank: every broadcast and allreduce algorithm, both gathers, both allgathers on 3 and 8 ranks. */
    @Test
    void oneMegabyteMessages() {
        int n = 131_072; // doubles: 1 MiB
        for (int p : bigSizes()) {
            Object[] results = run(p, c -> {
                int me = c.rank();
                double[] big = new double[n];
                for (int i = 0; i < n; i++) {
                    big[i] = (i % 1000) + me;
                }
                for (String alg : withAuto("bcast")) {
                    Object got = c.bcast(me == 1 ? big : null, 1, alg);
                    double[] g = (double[]) got;
                    assertEquals(n, g.length);
                    for (int i = 0; i < n; i += 997) {
                        assertEquals((i % 1000) + 1, g[i], "bcast 1MB " + alg);
                    }
                }
                for (String alg : withAuto("allreduce")) {
                    double[] g = (double[]) c.allreduce(big, ReduceOp.SUM, alg);
                    for (int i = 0; i < n; i += 991) {
                        assertEquals(p * (i % 1000) + p * (p - 1) / 2.0, g[i], "allreduce 1MB " + alg);
                    }
                    assertEquals((i0(big)), big[0], "input untouched");
                }
                for (String alg : List.of("serial", "binomial")) {
                    Object got = c.gather(Arrays.copyOf(big, n / p), 0, alg);
                    if (me == 0) {
                        double[] g = (double[]) got;
                        assertEquals((n / p) * p, g.length);
                        assertEquals(p - 1, g[(n / p) * (p - 1)], "gather 1MB " + alg);
                    }
                }
                for (String alg : List.of("ring", "recursive-doubling")) {
                    double[] g = (double[]) c.allgather(Arrays.copyOf(big, n / p), alg);
                    assertEquals((n / p) * p, g.length);
                    assertEquals(p - 1, g[(n / p) * (p - 1)], "allgather 1MB " + alg);
                }
                return "ok";
            });
            assertEquals(p, results.length);
        }
    }

    private static double i0(double[] big) {
        return big[0];
    }

    @Test
    void thousandBackToBackAllreducesOnEightRanksAreExact() {
        run(8, c -> {
            int me = c.rank();
            for (int k = 0; k < 1000; k++) {
                double[] mine = new double[16];
                for (int i = 0; i < mine.length; i++) {
                    mine[i] = k + i + me;
                }
                double[] got = (double[]) c.allreduce(mine, ReduceOp.SUM, "auto");
                for (int i = 0; i < got.length; i++) {
                    if (got[i] != 8.0 * (k + i) + 28) {
                        throw new AssertionError("allreduce " + k + " element " + i + ": " + got[i]);
                    }
                }
                int s = (Integer) c.allreduce(k * 8 + me, ReduceOp.SUM, "auto");
                if (s != 64 * k + 28) {
                    throw new AssertionError("allreduce " + k + " scalar: " + s);
                }
            }
            return "ok";
        });
    }
}
