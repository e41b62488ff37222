package org.mpfl.samples.coupling;

import java.util.Arrays;

/**
 * One material's part of a 1-D rod, by finite volumes: {@code cells} equal cells numbered from the end
 * held at a fixed temperature (cell 0) towards the contact with the other material (the last cell).
 * Heat crosses a face at a rate (temperature difference) / (thermal resistance), with resistance
 * Δx/k for a whole cell and Δx/(2k) for a half cell, per unit cross-section.
 *
 * <p>Explicit time stepping, sub-cycled: each exchange interval is split into as many equal steps as this
 * material's own stability limit needs, with the neighbour's contact cell temperature held at its value
 * from the start of the interval. A conductive material takes more sub-steps than a poor conductor; the
 * steady state does not depend on the interval.
 */
final class RodSegment {

    /**
     * Fraction of the explicit stability limit. A cell's faces conduct at most 2k/Δx each (a half-cell
     * face; with one cell both are), so steps up to ρc·Δx²/(4k) are stable.
     */
    private static final double SAFETY = 0.9;

    private double cellWidth;
    private double conductivity;
    private double heatCapacity;   // volumetric, J/(m³·K)
    private double heldTemperature;
    private double[] temperature;
    private double[] change;

    /** For the {@code object} codec, which sets the fields from a message (docs/wire-format.md). */
    private RodSegment() {
    }

    RodSegment(double conductivity, double heatCapacity, double length, int cells, double heldTemperature) {
        if (cells < 1 || conductivity <= 0 || heatCapacity <= 0 || length <= 0) {
            throw new IllegalArgumentException("need cells ≥ 1 and positive conductivity, heat capacity and length");
        }
        this.cellWidth = length / cells;
        this.conductivity = conductivity;
        this.heatCapacity = heatCapacity;
        this.heldTemperature = heldTemperature;
        this.temperature = new double[cells];
        this.change = new double[cells];
        // the segment starts at the temperature of its held end, like two bars brought into contact
        Arrays.fill(temperature, heldTemperature);
    }

    /** The resistance between the contact cell's centre and the contact face: what the neighbour needs. */
    double contactResistance() {
        return cellWidth / (2.0 * conductivity);
    }

    double contactCellTemperature() {
        return temperature[temperature.length - 1];
    }

    /** Temperature of the contact face, where the heat flow through both half cells is the same. */
    double interfaceTemperature(double neighbourTemperature, double neighbourResistance) {
        double own = contactResistance();
        return (contactCellTemperature() / own + neighbourTemperature / neighbourResistance)
                / (1.0 / own + 1.0 / neighbourResistance);
    }

    /** Advances by {@code interval} seconds with the neighbour's contact cell held at {@code neighbourTemperature}. */
    void advance(double interval, double neighbourTemperature, double neighbourResistance) {
        double stableStep = SAFETY * heatCapacity * cellWidth * cellWidth / (4.0 * conductivity);
        int subSteps = (int) Math.ceil(interval / stableStep);
        double step = interval / subSteps;
        double cellResistance = cellWidth / conductivity;
        double heldEndResistance = cellWidth / (2.0 * conductivity);
        double contactResistance = contactResistance() + neighbourResistance;
        double heatPerKelvin = heatCapacity * cellWidth;   // J/(m²·K) stored by one cell
        int last = temperature.length - 1;

        for (int s = 0; s < subSteps; s++) {
            for (int i = 0; i <= last; i++) {
                double fromHeldSide = i == 0
                        ? (heldTemperature - temperature[0]) / heldEndResistance
                        : (temperature[i - 1] - temperature[i]) / cellResistance;
                double fromContactSide = i == last
                        ? (neighbourTemperature - temperature[last]) / contactResistance
                        : (temperature[i + 1] - temperature[i]) / cellResistance;
                change[i] = step * (fromHeldSide + fromContactSide) / heatPerKelvin;
            }
            for (int i = 0; i <= last; i++) {
                temperature[i] += change[i];
            }
        }
    }
}
