package org.mpfl.war;

import org.junit.jupiter.api.Test;
import org.mpfl.testing.SettingsDoc;

class WarSettingsDocTest {
    @Test
    void docsCliListsTheWebApplicationsSettings() throws Exception {
        SettingsDoc.assertCurrent("war", WebAppSettings.class);
    }
}
