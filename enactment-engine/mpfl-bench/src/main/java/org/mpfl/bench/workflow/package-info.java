/**
 * The engine's benchmark commands, {@code mpflc bench mediator} (MPFL's direct messaging against the
 * engine's mediator mode), {@code mpflc bench moldyn} (the MolDyn sample: speed-up, communication
 * share, collective algorithms, MPJ Express side by side) and {@code mpflc bench startup} (the
 * engine's start-up time per rank count and the overhead of an empty run) and {@code mpflc bench lab}
 * (scale, and direct messaging against the mediator, with the engine and the hosts in network namespaces
 * on shaped links): each runs MPFL documents through a real engine on service-host processes and stops
 * them before it returns.
 */
package org.mpfl.bench.workflow;
