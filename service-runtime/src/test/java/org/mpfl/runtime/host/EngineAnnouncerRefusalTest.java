package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What a host logs when the engine refuses or cannot be reached: a 401 names the host's credential (not the engine's
 * token); an untrusted certificate, a scheme the engine does not speak, or nobody listening, what to do.
 */
class EngineAnnouncerRefusalTest {
    @Test
    void a401SaysTheCredentialIsRefusedAndWhereANewOneComesFrom() {
        assertEquals("HTTP 401: the engine refuses this host's credential (unknown, revoked or a wrong secret; a new one:"
                + " mpflc host-token on the engine's machine)", EngineAnnouncer.refusal(401, "{\"error\":\"wrong engine token\"}\n"));
    }

    @Test
    void otherRefusalsCarryTheEnginesAnswerOnOneLine() {
        assertEquals("HTTP 409 {\"error\":\"'n1' is registered as a relay\"}",
                EngineAnnouncer.refusal(409, "{\"error\":\"'n1' is registered as a relay\"}\n"));
        assertEquals("HTTP 503", EngineAnnouncer.refusal(503, ""));
    }

    /** A host in Tomcat keeps asking after a refused credential: it says that a new file is read at its next start. */
    @Test
    void aHostThatKeepsAskingSaysWhenANewCredentialIsRead() {
        assertEquals("; this host keeps asking, and reads a new credential file only when it starts again (in Tomcat: restart it,"
                + " or reload the /axis2 application)", EngineAnnouncer.stillAsking(401));
        assertEquals("", EngineAnnouncer.stillAsking(503));
    }
}
