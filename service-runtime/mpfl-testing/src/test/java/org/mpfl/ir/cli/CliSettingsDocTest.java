package org.mpfl.ir.cli;

import org.junit.jupiter.api.Test;
import org.mpfl.testing.SettingsDoc;

class CliSettingsDocTest {
    @Test
    void docsCliListsTheCommandFramesSettings() throws Exception {
        SettingsDoc.assertCurrent("mpflc", CliSettings.class);
    }
}
