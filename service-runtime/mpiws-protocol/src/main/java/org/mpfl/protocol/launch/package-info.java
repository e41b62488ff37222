/**
 * Starting service hosts as child processes: {@link org.mpfl.protocol.launch.HostProcesses} is the one
 * launcher that {@code mpflc run --local}, {@code mpflc up}, the benchmarks and the tests use. It starts
 * hosts on free loopback ports with the current class path, waits (bounded) for each one's ready line
 * ({@link org.mpfl.protocol.launch.HostProcess} holds the addresses read from it), hands each host the
 * engine's URL and its credential on standard input once the engine issued them (never on a command
 * line), and stops them reliably; the children also exit when the launching JVM dies. Hosts on other
 * "machines" of this one are started inside network namespaces
 * ({@link org.mpfl.protocol.launch.NetworkNamespaces}, for the tests' lab and {@code mpflc bench lab}). It sits above the
 * protocol's messages (which never use it) so that the engine can start hosts without the runtime on
 * its compile path.
 */
package org.mpfl.protocol.launch;
