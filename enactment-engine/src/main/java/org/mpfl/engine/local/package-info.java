/**
 * An engine with local service-host child processes ({@code mpflc run --local}, {@code mpflc up}). Network
 * namespaces as "machines" on this one machine are the launcher's
 * ({@link org.mpfl.protocol.launch.NetworkNamespaces}).
 */
package org.mpfl.engine.local;
