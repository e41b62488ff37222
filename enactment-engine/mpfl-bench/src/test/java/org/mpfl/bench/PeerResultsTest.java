package org.mpfl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reader of the peers' CSVs, on a small fixture cut from the peers' stored results ({@code src/test/resources/peers}). */
class PeerResultsTest {
    static Path fixture() throws Exception {
        return Path.of(PeerResultsTest.class.getResource("/peers").toURI());
    }

    private static final PeerResults.Peer NIODEV = new PeerResults.Peer("mpj", "niodev");
    private static final PeerResults.Peer MULTICORE = new PeerResults.Peer("mpj", "multicore");
    private static final PeerResults.Peer TCP = new PeerResults.Peer("ompi", "tcp");

    @Test
    void readsEveryTableOfAPeer() throws Exception {
        PeerResults r = PeerResults.read(fixture().resolve("results"), "mpj", "stored reference (fixture)");
        assertEquals(75.14, r.us(NIODEV, PeerResults.PINGPONG, 2, 1));
        assertEquals(766.14, r.us(NIODEV, PeerResults.PINGPONG, 2, 160));
        assertEquals(143.68, r.us(MULTICORE, PeerResults.PINGPONG, 2, 160));
        assertEquals(392.19, r.us(NIODEV, PeerResults.PINGKPONG, 2, 160), "Ping*Pong: the per-message column");
        assertEquals(4844.63, r.us(NIODEV, "bcast", 8, 300), "the double[] row, not the object one");
        assertEquals(503.58, r.us(NIODEV, "barrier", 8, 300), "barrier: any N");
        assertEquals(156.18, r.us(NIODEV, "barrier", 4, 0));
        assertTrue(Double.isNaN(r.us(NIODEV, PeerResults.PINGPONG, 2, 2000)), "a cut line is left out");
        assertTrue(Double.isNaN(r.us(NIODEV, "bcast", 4, 300)), "not measured");
        assertTrue(Double.isNaN(r.us(TCP, PeerResults.PINGPONG, 2, 1)), "another peer");
        assertEquals(List.of(1, 160), r.sizes(NIODEV, PeerResults.PINGPONG, 2));
        assertEquals("stored reference (fixture)", r.source("mpj"));
        assertEquals("not available", r.source("ompi"));
    }

    @Test
    void storedResultsOfEveryPeerAreLabelledAsSuch() throws Exception {
        PeerResults r = PeerRuns.stored(fixture());
        assertEquals(10.91, r.us(TCP, PeerResults.PINGPONG, 2, 1));
        assertEquals(1063.40, r.us(TCP, "bcast", 8, 300));
        assertTrue(r.source("mpj").startsWith("stored reference"), r.source("mpj"));
        assertTrue(r.source("ompi").startsWith("stored reference"), r.source("ompi"));
        assertEquals(PeerResults.empty().rows(), PeerRuns.stored(fixture().resolve("nowhere")).rows());
    }

    @Test
    void aLiveRunReplacesOnePeersStoredNumbers() throws Exception {
        PeerResults stored = PeerRuns.stored(fixture());
        PeerResults live = new PeerResults(List.of(new PeerResults.Row("mpj", "niodev", "double", PeerResults.PINGPONG, 2, 1, 8, 99.5)),
                Map.of("mpj", "measured in this run"));
        PeerResults r = stored.replacing("mpj", live);
        assertEquals(99.5, r.us(NIODEV, PeerResults.PINGPONG, 2, 1));
        assertTrue(Double.isNaN(r.us(NIODEV, PeerResults.PINGPONG, 2, 160)), "no stored MPJ number mixed in");
        assertEquals(10.91, r.us(TCP, PeerResults.PINGPONG, 2, 1), "the other peer keeps its numbers");
        assertEquals("measured in this run", r.source("mpj"));
        assertTrue(r.source("ompi").startsWith("stored reference"));
    }

    @Test
    void anyPeersCsvReadsByColumnName() throws Exception {
        List<Map<String, String>> rows = PeerResults.readRows(fixture().resolve("results/mpj-moldyn.csv"));
        assertEquals(1, rows.size());
        assertEquals("1731.4306625334357", rows.get(0).get("ek"));
        assertEquals("pass_abs_1e-12", rows.get(0).get("validation"));
        assertEquals(List.of(Map.of("a", "1", "b", "2")), PeerResults.parseRows(List.of("a,b", "1,2", "3", "")));
    }
}
