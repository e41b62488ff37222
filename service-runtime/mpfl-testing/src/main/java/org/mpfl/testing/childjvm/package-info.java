/**
 * The JVMs the tests start from their own class path (service hosts through {@code HostProcesses}, and through
 * {@link org.mpfl.testing.childjvm.ChildJvm} the network lab's engine, relays and node programs, the Slurm
 * cluster's {@code mpflc}, a test's own child): in the full tier they start on a class path of jars with a
 * class-data sharing archive trained on it once per module build ({@link org.mpfl.testing.childjvm.ChildJvmSession},
 * docs/fixtures.md), which saves each child a large part of its start's CPU on a suite that is CPU-bound.
 */
package org.mpfl.testing.childjvm;
