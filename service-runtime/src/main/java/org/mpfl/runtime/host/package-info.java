/**
 * The MPFL service host: one JVM that publishes MPIWS service types over SOAP (Axis2) and runs the
 * ranks the engine places there. {@link org.mpfl.runtime.host.ServiceHost} is a thin composition of
 * one owner per step: {@code Axis2Lifecycle} (the private repository, the Axis2 configuration context
 * and the HTTP server, or a servlet container's), {@code ServiceArchives} (receiving, unpacking and
 * binding {@code .aar} archives), {@code CallerAuthentication} (only the engine holding this host's
 * key, or this machine when no engine serves it, may deploy or {@code run}), {@code MpiwsDispatch} (the
 * service types and the binding of their operations to the MPIWS message receivers) and
 * {@code RankTable} (the ranks that {@code run}, {@code status} and {@code abort} act on).
 * Around it: {@link org.mpfl.runtime.host.HostMain} (the {@code mpflc host} process, its flags and its
 * ready line), the announcer that registers the host with the engine, the poster of rank events and
 * the uploader of checkpoint parts, and {@link org.mpfl.runtime.host.ContainerRuntime} for generated
 * services deployed into a stock Axis2 container instead of a host.
 *
 * <p>The host sits below the interpreter and above the communicators, collectives, point-to-point
 * messaging and transports; its messaging half ({@link org.mpfl.runtime.p2p.MessagingHost}) is the same
 * as that of an in-process host without HTTP. Wire formats come from the protocol module
 * ({@code org.mpfl.protocol}).
 */
package org.mpfl.runtime.host;
