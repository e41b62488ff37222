/**
 * Internal: communication domains as one service host sees them — the rank registry keyed by
 * (domain ID, rank) that every transport hands arriving messages to, domain tokens and their
 * proofs, the per-domain memory bound and abort, and the messaging half of a host
 * ({@link org.mpfl.runtime.domain.MessagingHost}); {@link org.mpfl.runtime.domain.InProcessCluster}
 * runs ranks of several hosts in one JVM without Axis2 (tests, benchmarks).
 */
package org.mpfl.runtime.domain;
