/**
 * Runs of a deployment plan: process layout (the compiler's
 * {@link org.mpfl.ir.eval.ProcessLayout}), placement, domain creation, parallel {@code run}
 * fan-out (Camel), monitoring, deadlock detection, cancel and abort.
 */
package org.mpfl.engine.run;
