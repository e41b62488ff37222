package org.mpfl.samples.moldyn;

/**
 * The particles of the Java Grande Forum MolDyn benchmark (Section 3; Lennard-Jones molecular
 * dynamics in reduced units, after D. Heermann), as every rank holds them: all particles, with
 * positions, velocities and the last global forces.
 *
 * <p>Each move is: {@link #drift()} (all ranks, O(n)), {@link #addPairForces} for this rank's rows
 * only (O(n²/2p)), a global sum of those partial forces (the workflow's {@code allreduce}), and
 * {@link #applyForces} (all ranks, O(n)). The floating-point operations are done in the benchmark's
 * order so that one rank reproduces the benchmark's reference kinetic energies bit for bit.
 */
final class MolecularSystem {

    // the benchmark's constants
    static final double DENSITY = 0.83134;
    static final double REFERENCE_TEMPERATURE = 0.722;
    static final double TIME_STEP = 0.064;
    /** Velocities are rescaled to the reference temperature after every 10th move while below 19 (i.e. once). */
    static final int RESCALE_EVERY = 10;
    static final int RESCALE_UNTIL = 19;

    int cellsPerSide;
    int particles;
    private double side;
    private double halfSide;
    private double cutoffSquared;
    private double timeStepSquared;
    private double halfTimeStepSquared;
    private double temperatureScale;

    private double[] x;
    private double[] y;
    private double[] z;
    private double[] vx;
    private double[] vy;
    private double[] vz;
    /** Global forces of the last move, already multiplied by h²/2 (a displacement, as in the benchmark). */
    private double[] fx;
    private double[] fy;
    private double[] fz;

    private int movesDone;
    private double kineticSum;        // ekin: sum of v² / h²
    private double potentialSum;      // epot: sum over pairs of (r^-12 - r^-6), before the factor 4
    private double virialSum;
    private long interactions;

    /** For the {@code object} codec, which sets the fields from a message (docs/wire-format.md). */
    private MolecularSystem() {
    }

    /** n = 4·mm³ particles on a face-centred cubic lattice with Gaussian velocities at the reference temperature. */
    MolecularSystem(int cellsPerSide) {
        if (cellsPerSide < 1 || cellsPerSide > 100) {
            throw new IllegalArgumentException("mm must be in 1..100, got " + cellsPerSide);
        }
        this.cellsPerSide = cellsPerSide;
        this.particles = 4 * cellsPerSide * cellsPerSide * cellsPerSide;
        this.side = StrictMath.pow(particles / DENSITY, 0.3333333);
        this.halfSide = side * 0.5;
        double cutoff = cellsPerSide / 4.0;
        this.cutoffSquared = cutoff * cutoff;
        this.timeStepSquared = TIME_STEP * TIME_STEP;
        this.halfTimeStepSquared = timeStepSquared * 0.5;
        this.temperatureScale = 16.0 / (1.0 * particles - 1.0);

        x = new double[particles];
        y = new double[particles];
        z = new double[particles];
        vx = new double[particles];
        vy = new double[particles];
        vz = new double[particles];
        fx = new double[particles];
        fy = new double[particles];
        fz = new double[particles];

        placeOnLattice();
        drawVelocities();
    }

    /**
     * Four simple cubic sublattices, shifted by (0,0,0), (½,½,0), (½,0,½), (0,½,½) lattice constants,
     * generated one after the other with the z index running fastest: the particle numbering decides
     * the summation order of the forces, so it is part of the benchmark.
     */
    private void placeOnLattice() {
        double latticeConstant = side / cellsPerSide;
        double halfConstant = latticeConstant * 0.5;
        int[][] shiftsInHalfConstants = {{0, 0, 0}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}};
        int next = 0;
        for (int[] shift : shiftsInHalfConstants) {
            for (int i = 0; i < cellsPerSide; i++) {
                for (int j = 0; j < cellsPerSide; j++) {
                    for (int k = 0; k < cellsPerSide; k++) {
                        x[next] = i * latticeConstant + shift[0] * halfConstant;
                        y[next] = j * latticeConstant + shift[1] * halfConstant;
                        z[next] = k * latticeConstant + shift[2] * halfConstant;
                        next++;
                    }
                }
            }
        }
    }

    /**
     * Gaussian velocities from the benchmark's generator (seed 0), one pair of deviates for each two
     * particles, all x components first, then y, then z; each component shifted to zero mean, then all
     * scaled to the reference temperature.
     */
    private void drawVelocities() {
        JgfRandom random = new JgfRandom(0);
        for (double[] component : new double[][] {vx, vy, vz}) {
            for (int i = 0; i + 1 < particles; i += 2) {
                double factor = random.nextPolarFactor();
                component[i] = factor * random.lastFirst();
                component[i + 1] = factor * random.lastSecond();
            }
        }
        double squaredSpeeds = 0.0;
        for (double[] component : new double[][] {vx, vy, vz}) {
            double mean = 0.0;
            for (int i = 0; i < particles; i++) {
                mean = mean + component[i];
            }
            mean = mean / particles;
            for (int i = 0; i < particles; i++) {
                component[i] = component[i] - mean;
                squaredSpeeds = squaredSpeeds + component[i] * component[i];
            }
        }
        scaleVelocities(TIME_STEP * Math.sqrt(REFERENCE_TEMPERATURE / (temperatureScale * squaredSpeeds)));
    }

    private void scaleVelocities(double factor) {
        for (int i = 0; i < particles; i++) {
            vx[i] = vx[i] * factor;
            vy[i] = vy[i] * factor;
            vz[i] = vz[i] * factor;
        }
    }

    /** First half of a move: positions advance by v + F·h²/2 (wrapped into the periodic box), v by F·h²/2. */
    void drift() {
        for (int i = 0; i < particles; i++) {
            x[i] = wrapIntoBox(x[i] + vx[i] + fx[i]);
            y[i] = wrapIntoBox(y[i] + vy[i] + fy[i]);
            z[i] = wrapIntoBox(z[i] + vz[i] + fz[i]);
            vx[i] = vx[i] + fx[i];
            vy[i] = vy[i] + fy[i];
            vz[i] = vz[i] + fz[i];
        }
    }

    private double wrapIntoBox(double coordinate) {
        if (coordinate < 0) {
            coordinate = coordinate + side;
        }
        if (coordinate > side) {
            coordinate = coordinate - side;
        }
        return coordinate;
    }

    /** Minimum image convention: the nearest periodic copy of a coordinate difference. */
    private double nearestImage(double difference) {
        if (difference < -halfSide) {
            difference = difference + side;
        }
        if (difference > halfSide) {
            difference = difference - side;
        }
        return difference;
    }

    /**
     * Lennard-Jones forces of the pairs (i, j), j &gt; i, for the rows i = firstRow, firstRow + rowStride, …
     * (the benchmark's cyclic split: rank r of p takes the rows with i % p == r). Adds +F to particle i and
     * −F to particle j in {@code partial} (laid out as {@link ForceLayout}), and the pairs' potential energy,
     * virial and count to its scalar slots. Forces are in units where the factor 48 is left out, as in the
     * benchmark; {@link #applyForces} scales them.
     */
    void addPairForces(int firstRow, int rowStride, double[] partial) {
        int ySlot = ForceLayout.yBlock(particles);
        int zSlot = ForceLayout.zBlock(particles);
        double potential = 0.0;
        double virial = 0.0;
        long pairs = 0;
        for (int i = firstRow; i < particles; i += rowStride) {
            double rowX = 0.0;
            double rowY = 0.0;
            double rowZ = 0.0;
            for (int j = i + 1; j < particles; j++) {
                double dx = nearestImage(x[i] - x[j]);
                double dy = nearestImage(y[i] - y[j]);
                double dz = nearestImage(z[i] - z[j]);
                double distanceSquared = dx * dx + dy * dy + dz * dz;
                if (distanceSquared <= cutoffSquared) {
                    double inverse = 1.0 / distanceSquared;
                    double inverse2 = inverse * inverse;
                    double inverse3 = inverse2 * inverse;
                    double inverse4 = inverse2 * inverse2;
                    double inverse6 = inverse2 * inverse4;
                    double inverse7 = inverse6 * inverse;
                    potential = potential + (inverse6 - inverse3);
                    double strength = inverse7 - 0.5 * inverse4;
                    virial = virial - distanceSquared * strength;
                    double forceX = dx * strength;
                    rowX = rowX + forceX;
                    partial[j] = partial[j] - forceX;
                    double forceY = dy * strength;
                    rowY = rowY + forceY;
                    partial[ySlot + j] = partial[ySlot + j] - forceY;
                    double forceZ = dz * strength;
                    rowZ = rowZ + forceZ;
                    partial[zSlot + j] = partial[zSlot + j] - forceZ;
                    pairs++;
                }
            }
            partial[i] = partial[i] + rowX;
            partial[ySlot + i] = partial[ySlot + i] + rowY;
            partial[zSlot + i] = partial[zSlot + i] + rowZ;
        }
        partial[ForceLayout.potentialEnergy(particles)] += potential;
        partial[ForceLayout.virial(particles)] += virial;
        partial[ForceLayout.interactions(particles)] += pairs;
    }

    /**
     * Second half of a move, with the global sums of all ranks' {@link #addPairForces}: v += F·h²/2,
     * the kinetic energy, and (once, after the 10th move) rescaling to the reference temperature.
     */
    void applyForces(double[] globalForces) {
        if (globalForces.length != ForceLayout.length(particles)) {
            throw new IllegalArgumentException("expected " + ForceLayout.length(particles)
                    + " summed force values for " + particles + " particles, got " + globalForces.length);
        }
        int ySlot = ForceLayout.yBlock(particles);
        int zSlot = ForceLayout.zBlock(particles);
        double squaredVelocities = 0.0;
        for (int i = 0; i < particles; i++) {
            fx[i] = globalForces[i] * halfTimeStepSquared;
            fy[i] = globalForces[ySlot + i] * halfTimeStepSquared;
            fz[i] = globalForces[zSlot + i] * halfTimeStepSquared;
            vx[i] = vx[i] + fx[i];
            vy[i] = vy[i] + fy[i];
            vz[i] = vz[i] + fz[i];
            squaredVelocities = squaredVelocities + (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        }
        kineticSum = squaredVelocities / timeStepSquared;
        potentialSum = globalForces[ForceLayout.potentialEnergy(particles)];
        virialSum = globalForces[ForceLayout.virial(particles)];
        interactions = Math.round(globalForces[ForceLayout.interactions(particles)]);
        movesDone++;

        if (movesDone % RESCALE_EVERY == 0 && movesDone <= RESCALE_UNTIL) {
            scaleVelocities(Math.sqrt(REFERENCE_TEMPERATURE / (temperatureScale * kineticSum)));
            kineticSum = REFERENCE_TEMPERATURE / temperatureScale;
        }
    }

    int movesDone() {
        return movesDone;
    }

    /** The benchmark's validated quantity: ek = 24·ekin. */
    double kineticEnergy() {
        return 24.0 * kineticSum;
    }

    double potentialEnergy() {
        return 4.0 * potentialSum;
    }

    double totalEnergy() {
        return kineticEnergy() + potentialEnergy();
    }

    double temperature() {
        return temperatureScale * kineticSum;
    }

    double pressure() {
        return DENSITY * 16.0 * (kineticSum - virialSum) / particles;
    }

    long interactions() {
        return interactions;
    }
}
