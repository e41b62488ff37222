package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;

/** The columns of {@code mpflc hosts} that are computed from the registry's JSON. */
class HostsCommandTest {
    @Test
    void aQuarantineReasonIsCutToAColumnAndRanksSayTheirShare() throws Exception {
        String longReason = "host a1 did not take service ring at https://10.88.1.11:40573/axis2/services/mpfl-deploy: Network is unreachable";
        JsonNode host = Json.MAPPER.readTree("{\"capacity\":4,\"ranksInUse\":3,\"oversubscribe\":true,\"quarantine\":{\"active\":true,"
                + "\"reason\":\"" + longReason + "\",\"untilMs\":" + (System.currentTimeMillis() + 60_000) + "}}");
        String state = HostsCommand.state(host);
        assertTrue(state.matches("quarantined until \\d\\d:\\d\\d:\\d\\d: " + longReason.substring(0, 59).replace(".", "\\.") + "…"), state);
        assertEquals("3/4+", HostsCommand.ranks(host));
        assertEquals("ok", HostsCommand.state(Json.MAPPER.readTree("{\"quarantine\":{\"active\":false,\"reason\":\"x\"}}")));
    }

    /** A healthy host the engine cannot reach through its relay is not "ok": placement leaves it out. */
    @Test
    void aHostOutOfReachThroughItsRelayIsKeptOutNotOk() throws Exception {
        JsonNode host = Json.MAPPER.readTree("{\"quarantine\":null,\"relay\":\"10.2.0.99:7070\",\"unreachable\":\"reached only"
                + " through a relay at 10.2.0.99:7070, but no relay has announced itself at 10.2.0.99:7070 (a host's --relay must"
                + " be the address a relay's ready line prints; placed once a relay announces itself there)\"}");
        assertEquals("kept out: reached only through a relay at 10.2.0.99:7070, but no relay has announced itself at"
                + " 10.2.0.99:7070", HostsCommand.state(host));
        assertEquals("ok", HostsCommand.state(Json.MAPPER.readTree("{\"quarantine\":null,\"relay\":\"10.2.0.99:7070\","
                + "\"unreachable\":null}")));
    }
}
