/** An engine with local service-host child processes ({@code mpflc run --local}, {@code mpflc up}). */
package org.mpfl.engine.local;
