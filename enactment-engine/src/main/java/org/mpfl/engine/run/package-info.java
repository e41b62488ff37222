/** Runs: placement, domain creation, parallel {@code run} fan-out (Camel), monitoring, deadlock detection, cancel and abort. */
package org.mpfl.engine.run;
