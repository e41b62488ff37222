package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.mpfl.engine.json.Json;

/**
 * What {@code mpflc login} keeps per engine URL: the tokens (access, refresh), when the access token
 * expires, the issuer's token endpoint and client id, and for a service account the <em>path</em> of
 * its secret file (never the secret). One JSON file, owner-only (0600, written to a new file and moved
 * into place, so it is never readable by others even for a moment), by default {@code ~/.mpfl/login.json}.
 * A cached access token within 30 s of its expiry is refreshed (refresh token, or the client credentials
 * grant again) and the file rewritten.
 */
final class TokenCache {
    private static final long MARGIN_MS = 30_000;

    private final Path file;

    TokenCache(Path file) {
        this.file = file;
    }

    static Path defaultFile() {
        return Path.of(System.getProperty("user.home"), ".mpfl", "login.json");
    }

    Path file() {
        return file;
    }

    /** Stores a login for an engine. */
    synchronized void save(String engineUrl, String tokenEndpoint, String clientId, OidcClient.Tokens t, Path secretFile)
            throws IOException {
        ObjectNode all = read();
        ObjectNode e = all.putObject(key(engineUrl));
        e.put("tokenEndpoint", tokenEndpoint);
        e.put("clientId", clientId);
        e.put("accessToken", t.access());
        e.put("refreshToken", t.refresh());
        e.put("expiresAtMs", t.expiresAtMs());
        e.put("clientSecretFile", secretFile == null ? null : secretFile.toAbsolutePath().toString());
        write(all);
    }

    /**
     * A login the issuer will not renew (revoked, expired, a service account's secret changed): only {@code mpflc login}
     * mends it. Not an outage: a command following a run stops on it at once rather than waiting as for an engine
     * that does not answer.
     */
    static final class LoginEnded extends IOException {
        private static final long serialVersionUID = 1L;

        LoginEnded(String message, IOException cause) {
            super(message, cause);
        }
    }

    /** A valid access token for an engine, refreshed when needed; empty without a login for it. */
    synchronized Optional<String> accessToken(String engineUrl) throws IOException {
        ObjectNode all = read();
        if (!(all.get(key(engineUrl)) instanceof ObjectNode e)) {
            return Optional.empty();
        }
        if (e.path("expiresAtMs").asLong() - MARGIN_MS > System.currentTimeMillis()) {
            return Optional.of(e.path("accessToken").asText());
        }
        OidcClient issuer = OidcClient.of(e.path("tokenEndpoint").asText());
        String clientId = e.path("clientId").asText();
        OidcClient.Tokens t;
        try {
            if (e.hasNonNull("refreshToken")) {
                t = issuer.refresh(clientId, e.get("refreshToken").asText());
            } else if (e.hasNonNull("clientSecretFile")) {
                t = issuer.clientCredentials(clientId, EngineClient.readSecretFile(Path.of(e.get("clientSecretFile").asText())));
            } else {
                throw new LoginEnded("the login for " + engineUrl + " has expired: run mpflc login again", null);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while refreshing the login", ie);
        } catch (OidcClient.IssuerUnreachable ex) {
            // logging in again needs the issuer too: the way out is the issuer's, not the user's
            throw new IOException("the login for " + engineUrl + " cannot be refreshed: " + ex.getMessage(), ex);
        } catch (LoginEnded ex) {
            throw ex;
        } catch (IOException ex) {
            throw new LoginEnded("the login for " + engineUrl + " cannot be refreshed (" + ex.getMessage() + "): run mpflc login again", ex);
        }
        e.put("accessToken", t.access());
        if (t.refresh() != null) {
            e.put("refreshToken", t.refresh());
        }
        e.put("expiresAtMs", t.expiresAtMs());
        write(all);
        return Optional.of(t.access());
    }

    private static String key(String engineUrl) {
        return engineUrl.endsWith("/") ? engineUrl.substring(0, engineUrl.length() - 1) : engineUrl;
    }

    private ObjectNode read() throws IOException {
        if (!Files.isRegularFile(file)) {
            return Json.MAPPER.createObjectNode();
        }
        return Json.MAPPER.readTree(Files.readString(file, StandardCharsets.UTF_8)) instanceof ObjectNode o ? o
                : Json.MAPPER.createObjectNode();
    }

    private void write(ObjectNode all) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tmp, Json.write(all), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
