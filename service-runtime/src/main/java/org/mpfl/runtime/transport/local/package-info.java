/** Internal: the in-JVM transport between ranks of one service host (hand-over with one deep copy). */
package org.mpfl.runtime.transport.local;
