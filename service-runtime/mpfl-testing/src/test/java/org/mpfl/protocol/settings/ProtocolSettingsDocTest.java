package org.mpfl.protocol.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.mpfl.testing.SettingsDoc;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.tls.TlsSettings;

class ProtocolSettingsDocTest {
    @Test
    void docsCliListsTheProtocolsSettings() throws Exception {
        SettingsDoc.assertCurrent("protocol", ProtocolSettings.class);
    }

    @Test
    void theVariablesNamedElsewhereAreTheDeclaredOnes() {
        assertEquals(HostCredential.ENV, ProtocolSettings.HOST_CREDENTIAL.name());
        assertEquals(TlsSettings.PASSWORD_ENV, ProtocolSettings.TLS_PASSWORD.name());
    }
}
