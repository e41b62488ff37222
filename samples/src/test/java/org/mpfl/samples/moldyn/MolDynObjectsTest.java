package org.mpfl.samples.moldyn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.mpfl.samples.common.ObjectRoundTrip;

/**
 * MolDyn's {@code object} values survive the object encoding exactly: a system sent mid-run (or its
 * random source) goes on to the same energies, bit for bit, as the one that stayed.
 */
class MolDynObjectsTest {
    private static void move(MolecularSystem system) {
        system.drift();
        double[] forces = new double[ForceLayout.length(system.particles)];
        system.addPairForces(0, 1, forces);
        system.applyForces(forces);
    }

    @Test
    void aSystemSentMidRunContinuesBitForBit() {
        MolecularSystem stayed = new MolecularSystem(3);
        for (int i = 0; i < 4; i++) {
            move(stayed);
        }
        MolecularSystem sent = ObjectRoundTrip.of(stayed, CreateSystem.class);
        for (int i = 0; i < 12; i++) { // across the rescaling after move 10
            move(stayed);
            move(sent);
            assertEquals(Double.doubleToRawLongBits(stayed.kineticEnergy()), Double.doubleToRawLongBits(sent.kineticEnergy()),
                    "ek after move " + stayed.movesDone());
            assertEquals(Double.doubleToRawLongBits(stayed.potentialEnergy()),
                    Double.doubleToRawLongBits(sent.potentialEnergy()));
            assertEquals(stayed.interactions(), sent.interactions());
            assertEquals(stayed.movesDone(), sent.movesDone());
        }
    }

    @Test
    void theRandomSourceContinuesItsSequence() {
        JgfRandom stayed = new JgfRandom(0);
        for (int i = 0; i < 5; i++) {
            stayed.nextPolarFactor();
        }
        JgfRandom sent = ObjectRoundTrip.of(stayed, CreateSystem.class);
        assertEquals(Double.doubleToRawLongBits(stayed.lastFirst()), Double.doubleToRawLongBits(sent.lastFirst()));
        for (int i = 0; i < 20; i++) {
            assertEquals(Double.doubleToRawLongBits(stayed.nextPolarFactor()), Double.doubleToRawLongBits(sent.nextPolarFactor()));
            assertEquals(Double.doubleToRawLongBits(stayed.lastSecond()), Double.doubleToRawLongBits(sent.lastSecond()));
        }
    }
}
