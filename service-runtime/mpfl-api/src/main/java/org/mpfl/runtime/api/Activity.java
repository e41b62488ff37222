package org.mpfl.runtime.api;

import java.util.Map;

/**
 * User code called by the MPFL {@code <compute class="…" in="a, b" out="c, d"/>} activity.
 *
 * <p>The class lives in a {@code library} jar bundled into the generated service; it must be public
 * with a public no-argument constructor. One instance is created per rank and reused for every call
 * of that activity on that rank, so it may keep state between iterations (e.g. a solver's work
 * arrays).
 *
 * <p>Values use the runtime's representation of MPFL types: {@code int} → {@link Integer},
 * {@code long} → {@link Long}, {@code double} → {@link Double}, {@code boolean} → {@link Boolean},
 * {@code string} → {@link String}, {@code int[]}/{@code long[]}/{@code double[]} → Java arrays,
 * {@code bytes} → {@code byte[]}, {@code object} → any object (one that is sent to another rank must
 * be a JDK value kind or a value class in this activity's package or listed in the library's
 * {@code META-INF/mpfl/object-types}: see the language reference on {@code object}).
 */
public interface Activity {
    /**
     * Runs the activity once.
     *
     * @param inputs  the values of the variables named in {@code in}, by name (arrays are the
     *                rank's own: the activity may update them in place)
     * @param context the rank, size, parameters and logger of the calling rank
     * @return the values of the variables named in {@code out}, by name; each is checked against the
     *         variable's declared type (a missing or mistyped output fails the rank with the
     *         activity's source location)
     * @throws Exception any failure; it fails the rank and aborts the domain
     */
    Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) throws Exception;
}
