package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.digest.Sha256;

/**
 * Checkpoints taken by the rank interpreter and runs resumed from them: every checkpoint of a
 * program with nested loops, an if, a while, a sequence, split and Cartesian communicators and an
 * object variable, resumed in a NEW domain, ends with the outputs of the uninterrupted run; a
 * damaged, foreign or mismatched part is refused with a clear fault.
 */
@Timeout(180)
class CheckpointResumeTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final String DOC = "checkpoint.mpfl.xml";
    private static final int RANKS = 4;
    /** 3 + 2 + 3 + 2 arrivals over the loops of the document. */
    private static final int CHECKPOINTS = 10;

    @Test
    void resumingFromEveryCheckpointGivesTheOutputsOfAnUninterruptedRun() {
        InterpreterHarness.Result full = InterpreterHarness.run(DOC, Map.of(), LIMIT).succeeded();
        for (int r = 0; r < RANKS; r++) {
            assertEquals(new TreeSet<>(range(1, CHECKPOINTS)), new TreeSet<>(full.rank(r).checkpoints.keySet()),
                    "rank " + r + " stored one part per checkpoint");
        }
        for (long k = 1; k <= CHECKPOINTS; k++) {
            long from = k;
            InterpreterHarness.Result resumed = InterpreterHarness.run(DOC, Map.of(), LIMIT,
                    r -> new RunRequest.Resume(from, full.rank(r).checkpoints.get(from))).succeeded();
            for (int r = 0; r < RANKS; r++) {
                String where = "rank " + r + " resumed from checkpoint " + k;
                assertEquals(full.output("acc", r), resumed.output("acc", r), where);
                assertArrayEquals((double[]) full.output("field", r), (double[]) resumed.output("field", r), where);
                assertEquals(full.output("names", r), resumed.output("names", r), where);
                assertEquals(full.output("halfRank", r), resumed.output("halfRank", r), where);
                // numbering goes on after the checkpoint resumed from, and the parts are the same
                assertEquals(new TreeSet<>(range(k + 1, CHECKPOINTS)), new TreeSet<>(resumed.rank(r).checkpoints.keySet()), where);
                for (long later = k + 1; later <= CHECKPOINTS; later++) {
                    assertEquals(full.rank(r).checkpoints.get(later), resumed.rank(r).checkpoints.get(later),
                            where + ": part of checkpoint " + later);
                }
            }
        }
    }

    @Test
    void everyTakesEveryNthArrivalOnlyAndZeroTakesNone() {
        InterpreterHarness.Result third = InterpreterHarness.run(DOC, Map.of("every", "3"), LIMIT).succeeded();
        // the inner for's checkpoint is reached 6 times (every 3rd: 2 parts), the while's 4 times (all)
        assertEquals(new TreeSet<>(range(1, 6)), new TreeSet<>(third.rank(0).checkpoints.keySet()));
        InterpreterHarness.Result none = InterpreterHarness.run(DOC, Map.of("every", "0"), LIMIT).succeeded();
        assertEquals(new TreeSet<>(range(1, 4)), new TreeSet<>(none.rank(2).checkpoints.keySet()),
                "only the while's checkpoint (every 1) is taken");
        InterpreterHarness.Result full = InterpreterHarness.run(DOC, Map.of(), LIMIT).succeeded();
        assertEquals(full.output("acc", 1), third.output("acc", 1), "checkpoints do not change results");
        // resuming a run with every=3 from its 2nd part keeps counting arrivals where the run was
        InterpreterHarness.Result resumed = InterpreterHarness.run(DOC, Map.of("every", "3"), LIMIT,
                r -> new RunRequest.Resume(2, third.rank(r).checkpoints.get(2L))).succeeded();
        assertEquals(third.rank(3).checkpoints.get(5L), resumed.rank(3).checkpoints.get(5L));
        assertEquals(full.output("acc", 3), resumed.output("acc", 3));
    }

    @Test
    void aDamagedPartIsRefusedWithAClearFault() {
        InterpreterHarness.Result full = InterpreterHarness.run(DOC, Map.of(), LIMIT).succeeded();
        String good = full.rank(1).checkpoints.get(4L);
        // one variable's bytes changed: still JSON, still base64, only the digest can tell
        int data = good.indexOf("\"data\":\"") + 8;
        char c = good.charAt(data);
        String damaged = good.substring(0, data) + (c == 'A' ? 'B' : 'A') + good.substring(data + 1);
        assertRefused(full, 1, damaged, "does not match its SHA-256");
        assertRefused(full, 1, "{\"format\":\"mpfl-rank-checkpoint-1\"", "not JSON");
        assertRefused(full, 1, "{\"vars\":{}}", "not a rank checkpoint");
        assertRefused(full, 1, full.rank(2).checkpoints.get(4L), "part of rank 2");
        assertRefused(full, 1, full.rank(1).checkpoints.get(3L), "part of checkpoint 3, not of 4");
    }

    @Test
    void aPartWhoseObjectNamesAClassOutsideTheAllowListIsRefusedUnread() throws Exception {
        InterpreterHarness.Result full = InterpreterHarness.run(DOC, Map.of(), LIMIT).succeeded();
        // a part made by someone who knows the format: a valid digest, and a gadget class in the object variable
        String gadget = resealed(full.rank(0).checkpoints.get(2L), content -> {
            var names = (ObjectNode) content.get("variables").get("names");
            names.put("type", "OBJECT");
            names.put("json", "[\"javax.management.BadAttributeValueExpException\",{\"val\":\"x\"}]");
        });
        InterpreterHarness.Result r = InterpreterHarness.run(DOC, Map.of(), LIMIT,
                x -> new RunRequest.Resume(2, x == 0 ? gadget : full.rank(x).checkpoints.get(2L)));
        RankFault fault = r.singleFault();
        assertEquals("resume", fault.activity());
        assertTrue(fault.getMessage().contains("javax.management.BadAttributeValueExpException"), fault.getMessage());
    }

    @Test
    void aMessageCrossingACheckpointOrAnOutstandingRequestFailsTheRunThere() {
        InterpreterHarness.Result clean = InterpreterHarness.run("crossing.mpfl.xml", Map.of(), LIMIT).succeeded();
        assertEquals(1, clean.rank(0).checkpoints.size());

        InterpreterHarness.Result crossing = InterpreterHarness.run("crossing.mpfl.xml", Map.of("what", "cross"), LIMIT);
        for (InterpreterHarness.RankRecord rank : crossing.ranks()) {
            RankFault f = rank.fault();
            assertTrue(f != null && f.activity().equals("checkpoint") && f.getMessage().contains(
                    "1 point-to-point message(s) cross the checkpoint (3 sent and 2 received in the domain before it)"),
                    "rank " + rank.rank + ": " + rank.failure);
            assertTrue(rank.checkpoints.isEmpty(), "no part of an inconsistent cut is stored");
        }

        InterpreterHarness.Result request = InterpreterHarness.run("crossing.mpfl.xml", Map.of("what", "request"), LIMIT);
        RankFault f = request.ranks().stream().map(InterpreterHarness.RankRecord::fault).filter(x -> x != null)
                .findFirst().orElseThrow(() -> new AssertionError("no fault: " + request.failures()));
        assertEquals("checkpoint", f.activity());
        assertTrue(f.getMessage().contains("request 'r' is still outstanding at the checkpoint"), f.getMessage());
    }

    @Test
    void aPartWhosePositionDoesNotFitTheProgramIsRefused() throws Exception {
        InterpreterHarness.Result full = InterpreterHarness.run(DOC, Map.of(), LIMIT).succeeded();
        String outside = resealed(full.rank(1).checkpoints.get(4L),
                content -> ((ObjectNode) content.get("position").get(0)).put("index", 99));
        assertRefused(full, 1, outside, "the checkpoint's position does not fit this program: activity 99 of level 0");
        String elsewhere = resealed(full.rank(1).checkpoints.get(4L),
                content -> ((ObjectNode) content.get("position").get(0)).put("index", 0));
        assertRefused(full, 1, elsewhere, "the saved position goes into a <split>");
    }

    /** A part edited by someone who knows the format, with its digest made to match again. */
    private static String resealed(String part, java.util.function.Consumer<ObjectNode> edit) throws Exception {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = (ObjectNode) json.readTree(part);
        ObjectNode content = (ObjectNode) root.get("content");
        edit.accept(content);
        root.put("sha256", Sha256.hex(json.writeValueAsString(content)));
        return root.toString();
    }

    private static void assertRefused(InterpreterHarness.Result full, int rank, String state, String expected) {
        InterpreterHarness.Result r = InterpreterHarness.run(DOC, Map.of(), LIMIT,
                x -> new RunRequest.Resume(4, x == rank ? state : full.rank(x).checkpoints.get(4L)));
        RankFault fault = r.singleFault();
        assertTrue(fault.getMessage().contains("cannot resume from checkpoint 4") && fault.getMessage().contains(expected),
                fault.getMessage());
        assertEquals(rank, r.faultingRank());
    }

    private static List<Long> range(long from, long to) {
        List<Long> out = new ArrayList<>();
        for (long i = from; i <= to; i++) {
            out.add(i);
        }
        return out;
    }
}
