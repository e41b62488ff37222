package org.mpfl.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The words for an engine out of reach, which the command line and the service host share. */
class EngineReachTest {
    @Test
    void eachFailureComesWithWhatToDo() {
        IOException pkix = new IOException(null, new SSLHandshakeException("PKIX path building failed"));
        assertEquals("cannot reach the engine at https://e:8443: PKIX path building failed (the engine's certificate is not"
                + " trusted here: give the CA that signed it with --tls-ca)", EngineReach.unreachable(pkix, "https://e:8443"));
        assertEquals("cannot reach the engine at http://e:9: connection refused (nothing listens there: is the engine running,"
                + " and is this its URL and port?)", EngineReach.unreachable(new ConnectException(), "http://e:9"));
        assertEquals("cannot reach the engine at http://e:8443: HTTP/1.1 header parser received no bytes (the engine may serve"
                + " https: give its https:// URL)", EngineReach.unreachable(new IOException("HTTP/1.1 header parser received no bytes"),
                "http://e:8443"));
        assertEquals(" (no answer to the connection: a firewall in between, or not the engine's address?)",
                EngineReach.hint(new HttpConnectTimeoutException("HTTP connect timed out"), "http://e"));
        assertEquals(" (the engine does not speak TLS at this http:// URL, or this is not its URL)",
                EngineReach.hint(new SSLHandshakeException("x"), "http://e"));
        assertEquals("cannot reach the engine at http://e: other", EngineReach.unreachable(new IOException("other"), "http://e"));
    }

    @Test
    void anotherServerIsNamedInTheSameWords() {
        assertEquals("cannot reach the issuer at http://i:9/realms/x: connection refused (nothing listens there: is the issuer"
                + " running, and is this its URL and port?)", EngineReach.unreachable(new ConnectException(), "issuer", "http://i:9/realms/x"));
        assertEquals("cannot reach the issuer at https://i: PKIX path building failed (the issuer's certificate is not trusted"
                + " here by this Java's CAs)", EngineReach.unreachable(new IOException(null, new SSLHandshakeException("PKIX path building failed")),
                "issuer", "https://i"));
    }
}
