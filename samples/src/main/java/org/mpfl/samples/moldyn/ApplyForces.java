package org.mpfl.samples.moldyn;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/**
 * {@code in="system, forces"} (forces: the {@code allreduce(sum)} of all ranks' partial forces) →
 * {@code out="system, ek, etot, temperature, pressure"}: completes the move and reports the
 * benchmark's quantities after it. {@code ek} after the 50th move is the value the benchmark validates.
 */
public final class ApplyForces implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        MolecularSystem system = Inputs.get(inputs, "system", MolecularSystem.class);
        system.applyForces(Inputs.doubles(inputs, "forces"));
        return Map.of("system", system,
                "ek", system.kineticEnergy(),
                "etot", system.totalEnergy(),
                "temperature", system.temperature(),
                "pressure", system.pressure());
    }
}
