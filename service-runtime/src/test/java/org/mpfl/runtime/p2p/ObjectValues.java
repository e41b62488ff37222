package org.mpfl.runtime.p2p;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * {@code object} values of every allowed kind, for round trips in one JVM and between processes: the
 * JDK value kinds and value classes of this package (so on the allow-list of the scenario programs,
 * whose package this is). {@link #difference} compares them exactly (doubles bit for bit).
 */
public final class ObjectValues {
    private ObjectValues() {
    }

    /** An enum value class. */
    public enum Unit { KELVIN, CELSIUS }

    /** A record value class with an array, a list, an enum and a map in it. */
    public record Reading(String sensor, double[] values, List<String> tags, Unit unit, Map<String, Integer> counts) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Reading r && sensor.equals(r.sensor) && Arrays.equals(values, r.values)
                    && tags.equals(r.tags) && unit == r.unit && counts.equals(r.counts);
        }

        @Override
        public int hashCode() {
            return sensor.hashCode();
        }
    }

    /**
     * A plain class as a scientist writes one: final fields, a constructor with arguments, a private
     * no-argument constructor for the object codec, a transient cache that does not travel.
     */
    public static final class Particle {
        private final long id;
        private final double[] position;
        private final Reading lastReading;
        private transient String label;

        private Particle() {
            this(0, null, null); // for the object codec, which sets the fields from the message
        }

        public Particle(long id, double[] position, Reading lastReading) {
            this.id = id;
            this.position = position;
            this.lastReading = lastReading;
            this.label = "particle " + id;
        }

        public String label() {
            return label;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Particle p && id == p.id && Arrays.equals(position, p.position)
                    && Objects.equals(lastReading, p.lastReading);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id);
        }

        @Override
        public String toString() {
            return "Particle" + id + Arrays.toString(position) + lastReading;
        }
    }

    /** One value of every kind an {@code object} payload may carry (each travels as payload type 10). */
    public static List<Object> all() {
        Reading reading = new Reading("t1", new double[] {1.5, -0.0, Double.NaN, Double.MIN_VALUE, Double.POSITIVE_INFINITY,
            0.1 + 0.2}, List.of("a", "ü€𝄞"), Unit.KELVIN, new LinkedHashMap<>(Map.of("n", 3)));
        List<Object> scalars = new ArrayList<>(Arrays.asList(true, 7, -8L, Math.PI, Double.NEGATIVE_INFINITY, Double.NaN,
                -0.0, 1.1f, Float.NaN, (short) -3, (byte) 127, 'x', "", "text", null, Long.MIN_VALUE, Integer.MAX_VALUE));
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put("key", 1);
        map.put(2, List.of("two"));
        map.put(null, null);
        map.put(reading, Unit.CELSIUS);
        Set<Object> set = new LinkedHashSet<>(List.of(1, "one", 1L));
        return List.of(
                scalars,
                new float[] {1.5f, Float.MIN_VALUE, -0.0f},
                new short[] {1, -1, Short.MAX_VALUE},
                new boolean[] {true, false, true},
                new char[] {'a', '€', '\0'},
                new String[] {"a", null, ""},
                new Object[] {1, "one", new int[] {1, 2}, new Object[] {null}},
                List.of(new int[] {1, 2, 3}, new long[] {Long.MAX_VALUE}, new double[] {1e-300, -2.5}, new byte[] {0, -1, 127}),
                map,
                set,
                reading,
                Unit.CELSIUS,
                new Particle(42, new double[] {0.1, 0.2, 0.3}, reading),
                List.of(new Particle(1, new double[0], null), new Particle(2, new double[] {Double.MAX_VALUE}, reading)),
                new ArrayList<>());
    }

    /** {@code null} if {@code actual} equals {@code expected} exactly (arrays element-wise, doubles by bits), else what differs. */
    public static String difference(Object expected, Object actual) {
        if (expected == null || actual == null) {
            return expected == actual ? null : "expected " + expected + ", got " + actual;
        }
        if (expected.getClass() != actual.getClass() && !(expected instanceof List && actual instanceof List)
                && !(expected instanceof Map && actual instanceof Map) && !(expected instanceof Set && actual instanceof Set)) {
            return "expected a " + expected.getClass().getName() + ", got a " + actual.getClass().getName();
        }
        if (expected instanceof Object[] e) {
            return difference(Arrays.asList(e), Arrays.asList((Object[]) actual));
        }
        if (expected.getClass().isArray()) {
            return Objects.deepEquals(expected, actual) ? null
                    : "arrays differ: " + Arrays.deepToString(new Object[] {expected}) + " vs " + Arrays.deepToString(new Object[] {actual});
        }
        if (expected instanceof List<?> e) {
            List<?> a = (List<?>) actual;
            if (e.size() != a.size()) {
                return "lists of " + e.size() + " and " + a.size();
            }
            for (int i = 0; i < e.size(); i++) {
                String d = difference(e.get(i), a.get(i));
                if (d != null) {
                    return "[" + i + "] " + d;
                }
            }
            return null;
        }
        if (expected instanceof Map<?, ?> e) {
            List<Object> ek = new ArrayList<>(e.keySet());
            List<Object> ak = new ArrayList<>(((Map<?, ?>) actual).keySet());
            String d = difference(ek, ak);
            if (d != null) {
                return "keys " + d;
            }
            return difference(new ArrayList<>(e.values()), new ArrayList<>(((Map<?, ?>) actual).values()));
        }
        if (expected instanceof Set<?> e) {
            return difference(new ArrayList<>(e), new ArrayList<>((Set<?>) actual));
        }
        if (expected instanceof Double e) {
            return Double.doubleToRawLongBits(e) == Double.doubleToRawLongBits((Double) actual) ? null
                    : "expected " + e + ", got " + actual;
        }
        return expected.equals(actual) ? null : "expected " + expected + ", got " + actual;
    }
}
