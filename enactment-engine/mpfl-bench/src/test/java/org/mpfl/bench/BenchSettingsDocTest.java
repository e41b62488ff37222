package org.mpfl.bench;

import org.junit.jupiter.api.Test;
import org.mpfl.testing.SettingsDoc;

class BenchSettingsDocTest {
    @Test
    void docsCliListsTheBenchmarksSettings() throws Exception {
        SettingsDoc.assertCurrent("bench", BenchSettings.class);
    }
}
