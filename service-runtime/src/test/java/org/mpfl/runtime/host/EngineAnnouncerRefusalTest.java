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

    @Test
    void anUnreachableEngineComesWithWhatToDo() {
        java.io.IOException pkix = new java.io.IOException("wrapped", new javax.net.ssl.SSLHandshakeException("PKIX path building failed"));
        assertTrue(EngineAnnouncer.unreachable(pkix, "https://e:8443").endsWith(
                "(this host does not trust the engine's certificate: give the CA that signed it with --tls-ca)"));
        assertTrue(EngineAnnouncer.unreachable(new java.net.ConnectException(), "http://e:9").endsWith(
                "(nothing listens there: is the engine running, and is this its URL and port?)"));
        assertTrue(EngineAnnouncer.unreachable(new java.io.IOException("HTTP/1.1 header parser received no bytes"), "http://e:8443")
                .endsWith("(the engine may serve https: give its https:// URL)"));
        assertEquals("java.io.IOException: other", EngineAnnouncer.unreachable(new java.io.IOException("other"), "http://e"));
    }
}
