package org.mpfl.war;

import org.junit.jupiter.api.Test;
import org.mpfl.ir.settings.SettingsDoc;

class WarSettingsDocTest {
    @Test
    void docsCliListsTheWebApplicationsSettings() throws Exception {
        SettingsDoc.assertCurrent("war", WebAppSettings.class);
    }
}
