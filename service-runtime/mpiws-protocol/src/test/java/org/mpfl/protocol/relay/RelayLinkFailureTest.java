package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** A host's relay link says what to do about a TLS failure, as its engine calls do. */
class RelayLinkFailureTest {
    @Test
    void tlsFailuresComeWithWhatToDo() {
        assertEquals("relay 10.0.0.5:7070: PKIX path building failed (this host does not trust the relay's certificate: give the"
                + " CA that signed it with --tls-ca)", RelayLink.failure("10.0.0.5:7070",
                new IOException("PKIX path building failed", new SSLHandshakeException("PKIX path building failed"))));
        assertEquals("relay 10.0.0.5:7070: Remote host terminated the handshake (TLS with the relay failed: a host with TLS needs a"
                + " relay with TLS, mpflc relay --tls-cert F --tls-key F)", RelayLink.failure("10.0.0.5:7070",
                new SSLException("Remote host terminated the handshake")));
        assertEquals("relay 10.0.0.5:7070: the relay connection closed", RelayLink.failure("10.0.0.5:7070",
                new java.io.EOFException("the relay connection closed")));
    }
}
