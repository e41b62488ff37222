package org.mpfl.runtime.settings;

import org.junit.jupiter.api.Test;
import org.mpfl.testing.SettingsDoc;

class RuntimeSettingsDocTest {
    @Test
    void docsCliListsTheRuntimesSettings() throws Exception {
        SettingsDoc.assertCurrent("runtime", RuntimeSettings.class);
    }
}
