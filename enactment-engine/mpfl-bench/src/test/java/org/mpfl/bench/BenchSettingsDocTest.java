package org.mpfl.bench;

import org.junit.jupiter.api.Test;
import org.mpfl.ir.settings.SettingsDoc;

class BenchSettingsDocTest {
    @Test
    void docsCliListsTheBenchmarksSettings() throws Exception {
        SettingsDoc.assertCurrent("bench", BenchSettings.class);
    }
}
