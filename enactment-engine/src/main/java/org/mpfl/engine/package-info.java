/**
 * The MPFL enactment engine. This package is the composition root: {@link org.mpfl.engine.Engine}
 * creates and wires registry, deployments, runs, workflows, store and HTTP, configured by
 * {@link org.mpfl.engine.EngineConfig}. No other engine package depends on it (only {@code cli},
 * {@code local} and {@code bench}, which sit above the engine). Layers, each depending only on those
 * after it: {@code rest} → {@code workflow} → {@code run} → {@code deploy} → {@code registry};
 * {@code store} and {@code json} below.
 */
package org.mpfl.engine;
