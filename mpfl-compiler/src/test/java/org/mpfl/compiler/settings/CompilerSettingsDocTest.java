package org.mpfl.compiler.settings;

import org.junit.jupiter.api.Test;
import org.mpfl.testing.SettingsDoc;

class CompilerSettingsDocTest {
    @Test
    void docsCliListsTheCompilersSettings() throws Exception {
        SettingsDoc.assertCurrent("compiler", CompilerSettings.class);
    }
}
