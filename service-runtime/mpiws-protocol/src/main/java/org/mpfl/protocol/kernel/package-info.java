/**
 * The Python side of the kernel protocol (docs/kernel-protocol.md), {@link org.mpfl.protocol.kernel.PythonWorker}:
 * here, below both the runtime that runs it as a rank's worker and the compiler that asks it which module names
 * a workflow's kernels cannot take.
 */
package org.mpfl.protocol.kernel;
