/**
 * Internal: the in-JVM transport between ranks of one service host (hand-over with one deep copy).
 * It delivers to a {@link org.mpfl.runtime.transport.local.LocalInbox}, which the layer above (the
 * point-to-point rank registry) implements; nothing here depends on that layer.
 */
package org.mpfl.runtime.transport.local;
