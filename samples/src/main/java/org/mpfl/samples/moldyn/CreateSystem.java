package org.mpfl.samples.moldyn;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/**
 * {@code in="cellsPerSide"} (int, the benchmark's mm) → {@code out="system, particles"}: every rank
 * builds the same initial state (lattice and velocities are deterministic), so nothing needs to be
 * broadcast; {@code system} is an MPFL {@code object} the other MolDyn activities take and return.
 */
public final class CreateSystem implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        MolecularSystem system = new MolecularSystem(Inputs.intValue(inputs, "cellsPerSide"));
        return Map.of("system", system, "particles", system.particles);
    }
}
