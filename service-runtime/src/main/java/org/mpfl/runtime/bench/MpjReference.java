package org.mpfl.runtime.bench;

import java.util.Map;

/**
 * The peer numbers this project is measured against: MPJ Express 0.44, {@code double[]}, on the same
 * kind of machine (2 cores, loopback), from {@code ../shared/peers/results/SUMMARY.md}: PingPong
 * median round trip and Ping*Pong time per message, in µs, by N.
 */
public final class MpjReference {
    private MpjReference() {
    }

    public static final int[] SIZES = {1, 10, 50, 100, 160, 200, 300, 500, 1000, 2000};

    private static final double[] NIODEV_PINGPONG = {75.1, 62.0, 57.9, 111, 766, 841, 1296, 2898, 11891, 37227};
    private static final double[] MULTICORE_PINGPONG = {51.7, 40.6, 50.9, 68.7, 144, 182, 306, 679, 2888, 13990};
    private static final double[] NIODEV_PINGSTARPONG = {15.5, 22.9, 27.6, 39.6, 392, 451, 703, 1624, 5611, 21023};
    private static final double[] MULTICORE_PINGSTARPONG = {23.8, 22.8, 23.9, 30.9, 46.1, 71.5, 129, 263, 1090, 6032};

    private static double at(double[] table, int n) {
        for (int i = 0; i < SIZES.length; i++) {
            if (SIZES[i] == n) {
                return table[i];
            }
        }
        return Double.NaN;
    }

    /** MPJ Express niodev (TCP between JVMs) PingPong RTT, µs. */
    public static double niodevPingPong(int n) {
        return at(NIODEV_PINGPONG, n);
    }

    /** MPJ Express multicore (threads in one JVM) PingPong RTT, µs. */
    public static double multicorePingPong(int n) {
        return at(MULTICORE_PINGPONG, n);
    }

    public static double niodevPingStarPong(int n) {
        return at(NIODEV_PINGSTARPONG, n);
    }

    public static double multicorePingStarPong(int n) {
        return at(MULTICORE_PINGSTARPONG, n);
    }

    /** The reference series a transport is compared with: multicore for {@code local}, niodev otherwise. */
    public static Map<String, String> comparedWith() {
        return Map.of("soap", "niodev", "binary", "niodev", "local", "multicore");
    }
}
