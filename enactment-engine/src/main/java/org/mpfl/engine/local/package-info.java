/**
 * An engine with local service-host child processes ({@code mpflc run --local}, {@code mpflc up}), and
 * network namespaces as "machines" on this one machine ({@link org.mpfl.engine.local.NetworkNamespaces}:
 * the multi-host tests and {@code mpflc bench lab}).
 */
package org.mpfl.engine.local;
