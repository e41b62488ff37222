package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which rank failures a run may restart after: a kernel worker killed from outside is one, a kernel's own fault is not. */
class RestartPolicyTest {
    @Test
    void aKernelWorkerKilledFromOutsideIsAnInfrastructureFault() {
        assertTrue(RestartPolicy.infrastructure("heat.mpfl:30:7: compute python jacobi:sweep: kernel worker lost: the python"
                + " worker (python3) was killed by signal 9 (SIGKILL) from outside (the OOM killer, or kill -9)"));
    }

    @Test
    void aKernelsOwnFaultIsTheWorkflows() {
        assertFalse(RestartPolicy.infrastructure("heat.mpfl:30:7: compute python jacobi:sweep: kernel jacobi:sweep raised an"
                + " exception:\nZeroDivisionError: float division by zero"));
        assertFalse(RestartPolicy.infrastructure("heat.mpfl:30:7: compute python jacobi:sweep: the python worker (python3)"
                + " exited with status 3"));
    }
}
