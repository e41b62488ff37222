package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.store.RunStore;

/**
 * The trace builder on events a well-behaved rank never sends: a flood of spans beyond the rank's own
 * cap is cut at the engine's (and counted), a {@code CHECKPOINT} event becomes an instant with its
 * fields, and an event kind the builder does not know is left out rather than failing the trace.
 */
class RunTraceBuildTest {
    static final long CREATED = 1_700_000_000_000L;

    static JsonNode detail() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", "r1");
        d.put("workflow", "w");
        d.put("state", "FAILED");
        d.put("createdMs", CREATED);
        d.put("endedMs", CREATED + 5000);
        d.put("ranks", List.of(Map.of("rank", 0, "process", "p", "host", "h1"), Map.of("rank", 1, "process", "p", "host", "h2")));
        return Json.MAPPER.valueToTree(d);
    }

    static RunStore.StoredEvent rankEvent(long id, int rank, Map<String, Object> body) {
        Map<String, Object> b = new LinkedHashMap<>(body);
        b.put("rank", rank);
        b.put("seq", id);
        b.putIfAbsent("timeMs", CREATED + id);
        return new RunStore.StoredEvent(id, "r1", rank, CREATED + id, "rank", Json.MAPPER.valueToTree(b));
    }

    static List<Map<String, Object>> spans(int from, int count) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            out.add(Map.of("name", "send", "cat", "send", "ts", CREATED * 1000 + i * 10L, "dur", 5, "lane", 0, "peer", 1, "tag", 0, "bytes", 8));
        }
        return out;
    }

    @Test
    void aFloodOfSpansIsCutAtTheEnginesCapAndCounted() {
        List<RunStore.StoredEvent> events = new ArrayList<>();
        events.add(rankEvent(1, 0, Map.of("type", "SPANS", "value", Map.of("spans", spans(0, 7000)))));
        events.add(rankEvent(2, 0, Map.of("type", "SPANS", "value", Map.of("spans", spans(7000, 5000),
                "dropped", Map.of("send", Map.of("count", 3, "durUs", 9))))));
        JsonNode trace = Json.MAPPER.valueToTree(RunTrace.build(detail(), events));
        long kept = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("ph").asText().equals("X") && e.path("pid").asInt() == 1 && e.path("tid").asInt() == 1) {
                kept++;
            }
        }
        assertEquals(RunTrace.MAX_SPANS_PER_RANK, kept);
        JsonNode dropped = trace.at("/otherData/droppedSpans/0");
        assertEquals(2000, dropped.path("(beyond the engine's cap of " + RunTrace.MAX_SPANS_PER_RANK + ")").path("count").asInt(), dropped.toString());
        assertEquals(3, dropped.path("send").path("count").asInt(), "what the rank counted itself stays: " + dropped);
    }

    /**
     * Messages that a {@code sendrecv} received get their arrow too: a sendrecv's span names where it sent and where its
     * message came from. heat2d, which moves its halos by sendrecv alone, had no arrow in its trace (docs/traces.md).
     */
    @Test
    void aSendrecvIsPairedAsASendAndAsAReceive() {
        List<RunStore.StoredEvent> events = new ArrayList<>();
        long t = CREATED * 1000 + 100;
        // ranks 0 and 1 swap a value by sendrecv (tag 3), then rank 1 sends rank 0 a plain message that a sendrecv takes
        events.add(rankEvent(1, 0, Map.of("type", "SPANS", "value", Map.of("spans", List.of(
                Map.of("name", "sendrecv", "cat", "sendrecv", "ts", t, "dur", 50, "lane", 0, "peer", 1, "tag", 3, "bytes", 8,
                        "from", 1, "fromTag", 3),
                Map.of("name", "sendrecv", "cat", "sendrecv", "ts", t + 100, "dur", 50, "lane", 0, "bytes", 0,
                        "from", 1, "fromTag", 4))))));
        events.add(rankEvent(2, 1, Map.of("type", "SPANS", "value", Map.of("spans", List.of(
                Map.of("name", "sendrecv", "cat", "sendrecv", "ts", t + 5, "dur", 40, "lane", 0, "peer", 0, "tag", 3, "bytes", 8,
                        "from", 0, "fromTag", 3),
                Map.of("name", "send", "cat", "send", "ts", t + 90, "dur", 5, "lane", 0, "peer", 0, "tag", 4, "bytes", 16))))));
        JsonNode trace = Json.MAPPER.valueToTree(RunTrace.build(detail(), events));
        List<String> arrows = new ArrayList<>();
        Map<Integer, Integer> startPid = new LinkedHashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("ph").asText().equals("s")) {
                startPid.put(e.path("id").asInt(), e.path("pid").asInt());
            }
        }
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("ph").asText().equals("f")) {
                arrows.add((startPid.get(e.path("id").asInt()) - 1) + "->" + (e.path("pid").asInt() - 1));
            }
        }
        arrows.sort(null);
        assertEquals(List.of("0->1", "1->0", "1->0"), arrows, trace.toString());
    }

    @Test
    void checkpointsBecomeInstantsAndUnknownKindsAreLeftOut() {
        List<RunStore.StoredEvent> events = new ArrayList<>();
        events.add(rankEvent(1, 1, Map.of("type", "STATE", "state", "RUNNING")));
        events.add(rankEvent(2, 1, Map.of("type", "CHECKPOINT", "name", "step-3", "location", "w.mpfl.xml:7:5",
                "value", Map.of("bytes", 1024))));
        events.add(rankEvent(3, 1, Map.of("type", "SOMETHING_NEW", "message", "x")));
        events.add(rankEvent(4, 1, Map.of("type", "STATE", "state", "FAILED", "message", "boom", "location", "w.mpfl.xml:9:5")));
        JsonNode trace = Json.MAPPER.valueToTree(RunTrace.build(detail(), events));
        JsonNode checkpoint = null;
        JsonNode fault = null;
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("ph").asText().equals("i") && e.path("name").asText().equals("checkpoint")) {
                checkpoint = e;
            }
            if (e.path("ph").asText().equals("i") && e.path("name").asText().equals("fault")) {
                fault = e;
            }
            assertTrue(!e.toString().contains("SOMETHING_NEW"), "unknown kinds are not in the trace: " + e);
        }
        assertTrue(checkpoint != null, trace.toString());
        assertEquals(2, checkpoint.get("pid").asInt());
        assertEquals(2000, checkpoint.get("ts").asLong(), "microseconds from the run's creation");
        assertEquals("step-3", checkpoint.at("/args/name").asText());
        assertEquals(1024, checkpoint.at("/args/value/bytes").asInt());
        assertEquals("w.mpfl.xml:9:5", fault.at("/args/location").asText());
        assertEquals("boom", fault.at("/args/message").asText());
    }
}
