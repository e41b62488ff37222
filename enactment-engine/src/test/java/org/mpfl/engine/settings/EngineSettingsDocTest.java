package org.mpfl.engine.settings;

import org.junit.jupiter.api.Test;
import org.mpfl.testing.SettingsDoc;

class EngineSettingsDocTest {
    @Test
    void docsCliListsTheEnginesSettings() throws Exception {
        SettingsDoc.assertCurrent("engine", EngineSettings.class);
    }
}
