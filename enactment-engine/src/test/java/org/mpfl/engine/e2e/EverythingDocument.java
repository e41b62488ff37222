package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What a run of the test document {@code mpfl/everything.mpfl.xml} with {@value #PARAMS} outputs,
 * wherever its four ranks run: on two local host processes ({@link MpflDocumentRunTest}) or on three
 * machines of the multi-host lab ({@code MultiHostRunTest}). One place, so that both check the same values.
 */
public final class EverythingDocument {
    /** The parameter the expected values are for. */
    public static final String PARAMS = "base=20";

    private EverythingDocument() {
    }

    /** Asserts every output of the run: the master is rank 0, the three workers ranks 1–3. */
    public static void assertOutputs(JsonNode o) {
        assertEquals(40, o.at("/y/0").asInt(), o.toString());
        // worker w gets task w+1, doubles it and adds table[2] = y = 40
        assertEquals("[42,44,46]", o.at("/answers/0").toString());
        assertEquals("[0,1,2,3]", o.at("/all/0").toString());
        assertEquals(6, o.at("/total/0").asInt());
        assertEquals("[0,1,2,3]", o.at("/swapped/0").toString());
        // scatter of base..base+9 from the master: 10 over 4 ranks is 3, 3, 2, 2; the allgather puts it back together
        assertEquals("[20,21,22]", o.at("/piece/0").toString());
        assertEquals("[23,24,25]", o.at("/piece/1").toString());
        assertEquals("[26,27]", o.at("/piece/2").toString());
        assertEquals("[28,29]", o.at("/piece/3").toString());
        for (int r = 0; r < 4; r++) {
            assertEquals("[20,21,22,23,24,25,26,27,28,29]", o.at("/pieces/" + r).toString(), "rank " + r);
        }
        for (int w = 0; w < 3; w++) {
            String rank = "/" + (w + 1);
            assertEquals(2 * (w + 1), o.at("/twice" + rank).asInt());
            assertEquals(w + 2, o.at("/prefix" + rank).asInt());
            assertEquals(6, o.at("/workerSum" + rank).asInt());
            assertEquals(w % 2 == 0 ? 2 : 1, o.at("/evenOdd" + rank).asInt());
            assertEquals((w + 2) % 3, o.at("/fromWest" + rank).asInt());
            assertEquals(((w + 1) % 3) * 10, o.at("/fromEast" + rank).asInt());
        }
    }
}
