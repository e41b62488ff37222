/**
 * The engine's mediator mode: an iterative workflow enacted BPEL-style. Every iteration the engine
 * invokes each rank's service once (the {@code step} operation of the service hosts,
 * {@link org.mpfl.runtime.mediator}), receives the rank's output and relays to every rank what it
 * needs for the next iteration — the alternative that MPFL's direct messaging between ranks is
 * measured against ({@code mpflc bench mediator}).
 */
package org.mpfl.engine.mediator;
