package org.mpfl.samples.coupling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.mpfl.samples.common.ObjectRoundTrip;

/** A coupling {@link RodSegment} survives the object encoding exactly: it advances on to the same temperatures. */
class RodSegmentObjectTest {
    @Test
    void aSegmentSentMidRunAdvancesBitForBit() {
        RodSegment stayed = new RodSegment(401.0, 3.45e6, 0.5, 12, 100.0);
        stayed.advance(10.0, 20.0, stayed.contactResistance());
        RodSegment sent = ObjectRoundTrip.of(stayed, AdvanceSegment.class);
        for (int i = 0; i < 5; i++) {
            stayed.advance(10.0, 20.0 + i, 1e-3);
            sent.advance(10.0, 20.0 + i, 1e-3);
            assertEquals(Double.doubleToRawLongBits(stayed.contactCellTemperature()),
                    Double.doubleToRawLongBits(sent.contactCellTemperature()));
            assertEquals(Double.doubleToRawLongBits(stayed.interfaceTemperature(20.0, 1e-3)),
                    Double.doubleToRawLongBits(sent.interfaceTemperature(20.0, 1e-3)));
        }
    }
}
