package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.net.URLEncoder;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.protocol.tls.TlsOptions;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc host-token --engine URL [-o FILE] [--host-id ID] [--token-file F] [--data DIR] [--tls-ca F]}
 * ({@code --list}, {@code --revoke ID}: the issued credentials, through {@code GET} and {@code DELETE} of the same route): asks
 * the engine for a new host credential ({@code POST /api/registry/credentials}, with the admin token
 * from {@code --token-file}, {@code $MPFL_ENGINE_TOKEN} or the data directory) and writes it as a join
 * file, created with mode 0600 (an existing file is not overwritten); without {@code -o} the file is
 * written to standard output. An {@code https} engine's certificate must chain to {@code --tls-ca} (else
 * the JDK's public CAs), as for the other engine clients. Copy it to the host's machine and start
 * {@code mpflc host --credential-file FILE --bind ADDR}.
 */
public final class HostTokenCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("host-token", "Asks the engine for a new host credential and"
            + " writes it as a join file (mode 0600; an existing file is not overwritten); with --list or --revoke, lists"
            + " or revokes the credentials issued.")
            .with(EngineOptions::client)
            .value("--output", "FILE", "the join file to create (else standard output)")
            .alias("-o", "--output")
            .value("--host-id", "ID", "the host's id (else the engine picks one)")
            .flag("--relay", "the credential is for a relay (mpflc relay), whose id is --host-id: a relay's credential runs a"
                    + " relay only and a host's a host only (the engine refuses each in the other's place)")
            .flag("--list", "list the credentials the engine has issued (no secrets: id, host or relay, when issued, whether"
                    + " it is in the registry now) instead of issuing one")
            .value("--revoke", "ID", "revoke a credential, by its id or its host's (or relay's) id, instead of issuing one: the"
                    + " host leaves the registry at once, its ranks fail as on a lost host, and it stops at its next heartbeat");
    private static final DateTimeFormatter ISSUED = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

    @Override
    public String name() {
        return "host-token";
    }

    @Override
    public String summary() {
        return "--engine URL [-o FILE] [--host-id ID] | --list | --revoke ID  issue (list, revoke) a service host's credential";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String url = EngineClient.resolveUrl(args.value("--engine"), args.value("--data"));
        if (url == null) {
            throw new UsageException("give the engine with --engine URL");
        }
        String revoke = args.value("--revoke");
        boolean list = args.flag("--list");
        if (list || revoke != null) {
            String issuing = args.value("--output") != null ? "-o/--output" : args.value("--host-id") != null ? "--host-id"
                    : args.flag("--relay") ? "--relay" : null;
            if (issuing != null) {
                throw new UsageException((list ? "--list" : "--revoke") + " issues nothing: give no " + issuing + " with it");
            }
            if (list && revoke != null) {
                throw new UsageException("--list and --revoke: one at a time");
            }
        }
        String token = EngineOptions.token(args, url);
        if (token == null) {
            String withheld = EngineClient.withheldToken(url, args.value("--data"));
            if (withheld != null) {
                // an engine still starting has recorded no URL yet: when nothing answers at all, that is the news, not the token
                requireAnswer(new EngineClient(url, null, TlsOptions.of(args)));
            }
            throw new UsageException((list ? "listing" : revoke != null ? "revoking" : "issuing")
                    + " host credentials needs the engine's admin token: " + (withheld != null ? withheld
                    : noToken(args.value("--data"))));
        }
        EngineClient client = new EngineClient(url, token, TlsOptions.of(args));
        if (list) {
            return list(client, out);
        }
        if (revoke != null) {
            return revoke(client, revoke, err);
        }
        boolean relay = args.flag("--relay");
        if (relay && args.value("--host-id") == null) {
            throw new UsageException("--relay needs --host-id NAME (the relay's id, as the registry lists it)");
        }
        String output = args.value("--output");
        if (output != null && Files.exists(Path.of(output))) {
            // before asking the engine: a credential whose file cannot be written would only have to be revoked
            throw new IOException(output + " exists: not overwritten (revoke the credential it holds if it is no longer needed)");
        }
        Path folder = output == null ? null : Path.of(output).toAbsolutePath().getParent();
        if (folder != null && (!Files.isDirectory(folder) || !Files.isWritable(folder))) {
            // the same: the engine would issue a credential that nobody ever gets
            throw new IOException("cannot write " + output + ": " + (Files.isDirectory(folder) ? "the directory " + folder
                    + " is not writable" : "no such directory " + folder) + " (nothing was issued)");
        }
        JsonNode issued = client.post("/api/registry/credentials", relay
                ? Map.of("hostId", args.value("--host-id"), "kind", "relay")
                : args.value("--host-id") == null ? Map.of() : Map.of("hostId", args.value("--host-id")));
        String text = issued.get("credential").asText();
        if (output == null) {
            out.print(text);
            out.flush();
        } else {
            writeOwnerOnly(Path.of(output), text);
            err.println(relay ? "relay credential " + issued.get("id").asText() + " for relay " + issued.get("hostId").asText()
                    + " written to " + output + " (mode 0600); on the relay's machine: mpflc relay --credential-file " + output
                    + " --bind ADDR --advertise ADDR --port P (with --tls-cert F --tls-key F when hosts use TLS)"
                    : "host credential " + issued.get("id").asText() + " for host "
                    + issued.get("hostId").asText() + " written to " + output + " (mode 0600); on the host: "
                    + hostCommand(output, url));
        }
        return 0;
    }

    /**
     * Where the admin token comes from when none was found: on the engine's machine it is in the engine's data directory,
     * which is not the default one when the engine runs with {@code mpflc up --data DIR} (as {@code mpflc up} prints).
     */
    static String noToken(String dataDir) {
        Path directory = EngineClient.dataDir(dataDir);
        return dataDir != null
                ? directory.resolve(org.mpfl.engine.Engine.TOKEN_FILE) + " does not exist (is " + dataDir + " the engine's --data"
                        + " directory?); or give the token with --token-file F or $MPFL_ENGINE_TOKEN"
                : "on the engine's machine, give its data directory with --data DIR (the --data of mpflc up; " + directory
                        + " holds no token), or the token with --token-file F or $MPFL_ENGINE_TOKEN";
    }

    /** The credentials as a table, oldest first. */
    private static int list(EngineClient client, PrintStream out) throws IOException, InterruptedException {
        Set<String> hosts = new HashSet<>();
        client.get("/api/registry/hosts").forEach(h -> hosts.add(h.path("hostId").asText()));
        Set<String> relays = new HashSet<>();
        client.get("/api/registry/relays").forEach(r -> relays.add(r.path("relayId").asText()));
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("CREDENTIAL", "KIND", "FOR", "ISSUED", "IN REGISTRY"));
        for (JsonNode c : client.get("/api/registry/credentials")) {
            String id = c.path("hostId").asText();
            rows.add(List.of(c.path("id").asText(), c.path("kind").asText("host"), id, ISSUED.format(Instant.ofEpochMilli(c.path("createdMs").asLong())
                    .atZone(ZoneId.systemDefault())), hosts.contains(id) ? "host" : relays.contains(id) ? "relay" : "no"));
        }
        if (rows.size() == 1) {
            out.println("no credentials issued (mpflc host-token --engine URL -o FILE issues one)");
        } else {
            TextTable.print(rows, out);
        }
        return 0;
    }

    /** Revokes the credential {@code given} names: its own id, else the host (or relay) id it is for. */
    private static int revoke(EngineClient client, String given, PrintStream err) throws IOException, InterruptedException {
        JsonNode match = null;
        for (JsonNode c : client.get("/api/registry/credentials")) {
            if (c.path("id").asText().equals(given) || match == null && c.path("hostId").asText().equals(given)) {
                match = c;
            }
        }
        if (match == null) {
            throw new IOException("no credential '" + given + "', nor one for a host of that id (mpflc host-token --list shows them)");
        }
        String id = match.path("id").asText();
        client.delete("/api/registry/credentials/" + URLEncoder.encode(id, StandardCharsets.UTF_8));
        err.println("revoked credential " + id + " of " + match.path("hostId").asText() + ": it is out of the registry, and a"
                + " host stops at its next heartbeat");
        return 0;
    }

    /**
     * The host's command line for a credential written to {@code output}: with the TLS flags when the engine is on
     * https, where a host without them trusts only the JDK's public CAs and fails the handshake with a lab CA's engine.
     */
    static String hostCommand(String output, String engineUrl) {
        return "mpflc host --credential-file " + output + " --bind ADDR"
                + (engineUrl.regionMatches(true, 0, "https:", 0, 6) ? " --tls-cert CERT.pem --tls-key KEY.pem --tls-ca CA.pem" : "")
                + " (in a site behind NAT: --site NAME --relay HOST:PORT)";
    }

    /**
     * Fails, saying why, when nothing answers at the engine's URL (refused, timed out, no TLS handshake); any answer,
     * even a refusal, is an engine there. Asked only before refusing for want of a token.
     */
    private static void requireAnswer(EngineClient engine) throws IOException, InterruptedException {
        try {
            engine.getText("/api/openapi");
        } catch (EngineClient.EngineException answered) {
            // something answered: the token is what is missing
        }
    }

    /** Creates {@code file} readable by its owner only from the start (no window with wider permissions). */
    static void writeOwnerOnly(Path file, String text) throws IOException {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            throw new IOException(file + " exists: not overwritten (revoke the credential it holds if it is no longer needed)");
        } catch (UnsupportedOperationException e) {
            Files.createFile(file); // not a POSIX file system
        }
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
    }
}
