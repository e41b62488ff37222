package org.mpfl.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The wire contract of checkpoints: the resume part of {@code run} and the upload proof. */
class CheckpointContractTest {
    private static final List<Endpoint> ENDPOINTS = List.of(new Endpoint("http://127.0.0.1:1/axis2/services/p", null, "h"));

    @Test
    void resumeTravelsInTheRunElementWithMarkupInTheStateIntact() throws Exception {
        String state = "{\"vars\":{\"s\":\"<a>&amp;</a>\"},\"pos\":[1,2]}";
        RunRequest r = new RunRequest("d", 0, ENDPOINTS, List.of(), Map.of(), "t", null, null, new RunRequest.Resume(3, state));
        RunRequest back = RunMessages.parseRun(RunMessages.runXml(r));
        assertEquals(3, back.resume().checkpoint());
        assertEquals(state, back.resume().state());
    }

    @Test
    void aRunWithoutResumeStartsFromTheBeginning() throws Exception {
        RunRequest r = new RunRequest("d", 0, ENDPOINTS, List.of(), Map.of(), "t", null, null);
        assertNull(RunMessages.parseRun(RunMessages.runXml(r)).resume());
    }

    @Test
    void aCheckpointProofIsBoundToDomainRankCheckpointAndContent() {
        DomainToken token = new DomainToken(DomainToken.generate());
        byte[] proof = token.proveCheckpoint("d", 1, 2, "ab");
        assertTrue(token.verifyCheckpoint("d", 1, 2, "ab", proof));
        assertFalse(token.verifyCheckpoint("e", 1, 2, "ab", proof));
        assertFalse(token.verifyCheckpoint("d", 0, 2, "ab", proof));
        assertFalse(token.verifyCheckpoint("d", 1, 3, "ab", proof));
        assertFalse(token.verifyCheckpoint("d", 1, 2, "ac", proof));
        assertFalse(new DomainToken(DomainToken.generate()).verifyCheckpoint("d", 1, 2, "ab", proof));
    }
}
