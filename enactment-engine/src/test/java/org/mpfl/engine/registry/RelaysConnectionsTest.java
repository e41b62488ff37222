package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The method the run record gives each ordered pair of hosts ({@link Relays#connections}): direct
 * within a site or to a host that accepts inbound connections, reverse from a host that accepts them
 * to one behind a relay, the relay only between two hosts behind relays.
 */
class RelaysConnectionsTest {
    static HostInfo host(String id, String address, String site) {
        return new HostInfo(id, "http://" + address + ":9000/axis2/services/", address + ":9100", Set.of("svc"), 1, 0L, false,
                null, false, null, site);
    }

    @Test
    void directWithinASiteReverseFromAnOpenHostRelayBetweenTwoClosedOnes() {
        Relays relays = new Relays();
        relays.hostUses(host("a1", "10.91.1.11", "A"), "10.91.0.5:7070");
        relays.hostUses(host("a2", "10.91.1.12", "A"), "10.91.0.5:7070");
        relays.hostUses(host("b1", "10.91.2.11", "B"), "10.91.0.5:7070");
        Map<String, String> sites = new LinkedHashMap<>();
        sites.put("w1", "default");
        sites.put("a1", "A");
        sites.put("a2", "A");
        sites.put("b1", "B");
        Map<String, Map<String, Object>> byPair = new LinkedHashMap<>();
        relays.connections(sites).forEach(c -> byPair.put(c.get("from") + ">" + c.get("to"), c));
        assertEquals(12, byPair.size(), byPair.toString());
        for (String pair : List.of("a1>a2", "a2>a1", "a1>w1", "b1>w1")) {
            assertEquals("direct", byPair.get(pair).get("method"), pair + ": " + byPair.get(pair));
        }
        for (String pair : List.of("w1>a1", "w1>a2", "w1>b1")) {
            assertEquals("reverse", byPair.get(pair).get("method"), pair + ": " + byPair.get(pair));
            String to = pair.substring(3);
            assertTrue(byPair.get(pair).get("why").toString().endsWith(to + " connects out to w1"), byPair.get(pair).toString());
        }
        for (String pair : List.of("a1>b1", "b1>a1", "a2>b1", "b1>a2")) {
            assertEquals("relay", byPair.get(pair).get("method"), pair + ": " + byPair.get(pair));
        }
    }
}
