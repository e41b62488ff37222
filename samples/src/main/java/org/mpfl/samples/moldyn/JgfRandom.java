package org.mpfl.samples.moldyn;

/**
 * The pseudo-random source of the Java Grande Forum MolDyn benchmark, reproduced exactly because the
 * benchmark's reference energies depend on every bit of the initial velocities.
 *
 * <p>Uniform deviates come from the multiplicative generator x ← 16807·x, taken modulo 2³¹ and then
 * modulo 2³¹−1 (a zero or negative state restarts at 1), scaled by the benchmark's constant
 * 4.656612875e-10. Gaussian pairs come from the polar (Marsaglia) method.
 */
final class JgfRandom {

    private static final long MULTIPLIER = 16807L;
    private static final long LOW_31_BITS = 0x7FFF_FFFFL;
    private static final long MODULUS = 2_147_483_647L;      // 2^31 - 1
    private static final double SCALE = 4.656612875e-10;     // the benchmark's value, close to 1/MODULUS

    private long state;
    private double lastFirst;
    private double lastSecond;

    /** For the {@code object} codec, which sets the fields from a message (docs/wire-format.md). */
    private JgfRandom() {
    }

    JgfRandom(long seed) {
        this.state = seed;
    }

    double nextUniform() {
        if (state <= 0) {
            state = 1;
        }
        state = ((MULTIPLIER * state) & LOW_31_BITS) % MODULUS;
        return SCALE * state;
    }

    /**
     * Draws a point (u, v) uniformly inside the unit disc and returns the polar method's factor
     * sqrt(−2·ln s / s) with s = u² + v²; the two Gaussian deviates are factor·u and factor·v
     * ({@link #lastFirst()}, {@link #lastSecond()}).
     *
     * <p>StrictMath.log (fdlibm), not Math.log: HotSpot's log intrinsic is allowed to differ from
     * the correctly rounded result in the last bit, and for some of these arguments it does, which
     * would move the final kinetic energy by ~1e-12 away from the benchmark's reference.
     */
    double nextPolarFactor() {
        double s;
        do {
            lastFirst = 2.0 * nextUniform() - 1.0;
            lastSecond = 2.0 * nextUniform() - 1.0;
            s = lastFirst * lastFirst + lastSecond * lastSecond;
        } while (s >= 1.0);
        return Math.sqrt(-2.0 * StrictMath.log(s) / s);
    }

    double lastFirst() {
        return lastFirst;
    }

    double lastSecond() {
        return lastSecond;
    }
}
