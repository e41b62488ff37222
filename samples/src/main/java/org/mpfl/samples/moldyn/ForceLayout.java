package org.mpfl.samples.moldyn;

/**
 * Layout of the one array that each rank contributes to the per-move {@code allreduce(sum)}:
 * the x, y and z force components of all n particles, one block each, followed by the rank's
 * partial potential energy, virial and number of interacting pairs. One concatenated array costs
 * one collective instead of six.
 */
final class ForceLayout {
    static final int COMPONENTS = 3;
    static final int SCALARS = 3;

    private ForceLayout() {
    }

    static int length(int particles) {
        return COMPONENTS * particles + SCALARS;
    }

    static int xBlock(int particles) {
        return 0;
    }

    static int yBlock(int particles) {
        return particles;
    }

    static int zBlock(int particles) {
        return 2 * particles;
    }

    static int potentialEnergy(int particles) {
        return COMPONENTS * particles;
    }

    static int virial(int particles) {
        return COMPONENTS * particles + 1;
    }

    static int interactions(int particles) {
        return COMPONENTS * particles + 2;
    }
}
