package org.mpfl.samples.moldyn;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/**
 * {@code in="system"} → {@code out="system, partialForces"}: moves the particles, then computes this
 * rank's share of the pair forces, rows i with i % p == r for rank r of p (the process's ranks). The
 * double[] {@code partialForces} (3n forces, then potential energy, virial, pair count) is what the
 * workflow sums over all ranks with one {@code allreduce}.
 */
public final class MoveAndComputeForces implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        MolecularSystem system = Inputs.get(inputs, "system", MolecularSystem.class);
        system.drift();
        double[] partialForces = new double[ForceLayout.length(system.particles)];
        system.addPairForces(context.processRank(), context.processSize(), partialForces);
        return Map.of("system", system, "partialForces", partialForces);
    }
}
