package org.mpfl.bench.mediator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.runtime.transport.ObjectTypes;

/** The step request's MTOM package reads back to the values written (attachments and inline values). */
class StepWireTest {
    @Test
    void valuesRoundTrip() throws Exception {
        double[] big = new double[5000];
        for (int i = 0; i < big.length; i++) {
            big[i] = Math.sin(i) * 1e300; // arbitrary bit patterns, including bytes that look like CR LF and dashes
        }
        Map<String, Object> inputs = new LinkedHashMap<>();
        inputs.put("all", big);
        inputs.put("n", 42);
        inputs.put("small", new double[] {1.5, -2.5});
        inputs.put("label", "a<b>&c");
        inputs.put("list", java.util.List.of("object", 1));
        StepWire.Body body = StepWire.request(new StepWire.StepRequest("x.Y", 1, 4, 7, inputs));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        body.parts().forEach(bytes::writeBytes);
        assertEquals(body.length(), bytes.size());
        Map<String, Object> back = StepWire.values(body.contentType(), bytes.toByteArray(), ObjectTypes.none());
        assertEquals(inputs.keySet(), back.keySet());
        assertArrayEquals(big, (double[]) back.get("all"), 0.0);
        assertEquals(42, back.get("n"));
        assertArrayEquals(new double[] {1.5, -2.5}, (double[]) back.get("small"), 0.0);
        assertEquals("a<b>&c", back.get("label"));
        assertEquals(java.util.List.of("object", 1), back.get("list"));
    }

    @Test
    void serviceUrlIsNextToTheHostsOtherServices() {
        assertEquals("http://h:1/axis2/services/MediatedActivity", StepWire.serviceUrl("http://h:1/axis2/services/"));
        assertEquals("http://h:1/axis2/services/MediatedActivity", StepWire.serviceUrl("http://h:1/axis2/services"));
    }
}
