package org.mpfl.war;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.HostCredential;

/**
 * Where the web application's settings come from (context parameter, then system property, then
 * {@code CATALINA_BASE/conf/mpfl-host.properties}; the credential from a file or the environment),
 * and that a missing or contradictory setting stops it with a message naming the setting, never
 * starting open.
 */
class WebAppSettingsTest {
    @TempDir
    Path base;

    private static String none(String key) {
        return null;
    }

    @Test
    void withoutABaseUrlTheApplicationDoesNotStart() throws IOException {
        Files.createDirectories(base.resolve("conf"));
        IOException e = assertThrows(IOException.class, () -> WebAppSettings.read(WebAppSettingsTest::none, base, WebAppSettingsTest::none));
        assertTrue(e.getMessage().contains(WebAppSettings.BASE_URL), e.getMessage());
    }

    @Test
    void anEngineWithoutACredentialIsRefused() throws IOException {
        Map<String, String> params = Map.of(WebAppSettings.BASE_URL, "http://127.0.0.1:8080",
                WebAppSettings.ENGINE, "http://engine:8080");
        IOException e = assertThrows(IOException.class, () -> WebAppSettings.read(params::get, base, WebAppSettingsTest::none));
        assertTrue(e.getMessage().contains("credential"), e.getMessage());
    }

    @Test
    void theCredentialFileInCatalinaBaseNamesTheEngineAndTheHost() throws IOException {
        Files.createDirectories(base.resolve("conf"));
        HostCredential c = HostCredential.generate("http://engine:8080", "tomcat-7");
        Path file = Files.writeString(base.resolve("conf/" + WebAppSettings.DEFAULT_CREDENTIAL_FILE), c.text());
        // as mpflc host does: a credential others may read is refused, naming the fix
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        IOException loose = assertThrows(IOException.class, () -> WebAppSettings.read(
                Map.of(WebAppSettings.BASE_URL, "http://node7:8080")::get, base, WebAppSettingsTest::none));
        assertTrue(loose.getMessage().contains("must be mode 0600 (chmod 600 " + file), loose.getMessage());
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Files.writeString(base.resolve("conf/" + WebAppSettings.PROPERTIES_FILE),
                "mpfl.baseUrl=http://node7:8080\nmpfl.capacity=3\nmpfl.binary=false\n");
        WebAppSettings s = WebAppSettings.read(WebAppSettingsTest::none, base, WebAppSettingsTest::none);
        assertEquals("http://node7:8080", s.baseUrl());
        assertEquals("tomcat-7", s.credential().hostId());
        assertEquals("http://engine:8080", s.engineUrl());
        assertEquals(3, s.capacity());
        assertFalse(s.binary());
        // a context parameter wins over the file
        WebAppSettings p = WebAppSettings.read(Map.of(WebAppSettings.CAPACITY, "5")::get, base, WebAppSettingsTest::none);
        assertEquals(5, p.capacity());
    }

    /** The example of docs/deployment.md (Tomcat), as printed, is a working properties file. */
    @Test
    void thePropertiesExampleOfTheDeploymentGuideWorksAsPrinted() throws IOException {
        String guide = Files.readString(Path.of("..", "..", "docs", "deployment.md"));
        int at = guide.indexOf("# CATALINA_BASE/conf/mpfl-host.properties");
        assertTrue(at > 0, "the guide has the example");
        String example = guide.substring(at, guide.indexOf("```", at));
        Files.createDirectories(base.resolve("conf"));
        Files.writeString(base.resolve("conf/" + WebAppSettings.PROPERTIES_FILE), example);
        WebAppSettings s = WebAppSettings.read(WebAppSettingsTest::none, base, WebAppSettingsTest::none);
        assertEquals("http://10.0.0.7:8080", s.baseUrl());
        assertEquals("10.0.0.7", s.bind());
    }

    /** A comment after a value (which Java properties keep as part of it) stops the application, saying so. */
    @Test
    void aCommentAfterAValueIsRefusedNamingTheKey() throws IOException {
        Files.createDirectories(base.resolve("conf"));
        Files.writeString(base.resolve("conf/" + WebAppSettings.PROPERTIES_FILE), "mpfl.baseUrl=http://10.0.0.7:8080   # required\n");
        IOException e = assertThrows(IOException.class, () -> WebAppSettings.read(WebAppSettingsTest::none, base, WebAppSettingsTest::none));
        assertTrue(e.getMessage().contains("mpfl.baseUrl") && e.getMessage().contains("'#' after it"), e.getMessage());
    }

    /** A misspelt key would be ignored and its default taken without a word: it stops the application, naming the key meant. */
    @Test
    void anUnknownKeyInThePropertiesFileIsRefusedWithTheKeyMeant() throws IOException {
        Files.createDirectories(base.resolve("conf"));
        Files.writeString(base.resolve("conf/" + WebAppSettings.PROPERTIES_FILE), "mpfl.baseUrl=http://10.0.0.7:8080\nmpfl.capacty=4\n");
        IOException e = assertThrows(IOException.class, () -> WebAppSettings.read(WebAppSettingsTest::none, base, WebAppSettingsTest::none));
        assertTrue(e.getMessage().contains("mpfl.capacty is not a setting of this file (did you mean 'mpfl.capacity'?)"), e.getMessage());
    }

    @Test
    void withoutCredentialNoEngine() throws IOException {
        WebAppSettings s = WebAppSettings.read(Map.of(WebAppSettings.BASE_URL, "http://127.0.0.1:8080")::get, base,
                WebAppSettingsTest::none);
        assertNull(s.credential());
        assertNull(s.engineUrl());
        assertTrue(s.binary());
    }

    @Test
    void badValuesNameTheSetting() {
        Map<String, String> params = Map.of(WebAppSettings.BASE_URL, "http://127.0.0.1:8080", WebAppSettings.BINARY, "yes");
        IOException e = assertThrows(IOException.class, () -> WebAppSettings.read(params::get, base, WebAppSettingsTest::none));
        assertTrue(e.getMessage().contains(WebAppSettings.BINARY), e.getMessage());
        IOException env = assertThrows(IOException.class, () -> WebAppSettings.read(
                Map.of(WebAppSettings.BASE_URL, "http://127.0.0.1:8080")::get, base,
                k -> k.equals(HostCredential.ENV) ? "not a credential" : null));
        assertTrue(env.getMessage().contains("credential"), env.getMessage());
    }
}
