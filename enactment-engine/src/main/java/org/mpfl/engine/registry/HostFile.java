package org.mpfl.engine.registry;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.mpfl.protocol.Sites;

/**
 * A static host file, like an MPI host file: one service host per line,
 * <pre>
 *   # comment
 *   http://node1:8081/axis2/services  services=ring,halo  capacity=4
 *   http://node2:8081/axis2/services  capacity=2
 * </pre>
 * The URL is the host's SOAP base URL (service type {@code t} is at {@code URL/t}). Without
 * {@code services=} the host is taken to offer every service type (it is assumed to have them
 * deployed); {@code capacity} defaults to 1, taken as a preference only (a host without one takes more
 * ranks when every host is full, as hosts did before capacity was honoured; with {@code capacity=N} the
 * engine never places more than N ranks there). Optional {@code binary=host:port}, {@code id=name} and
 * {@code site=NAME} (the host's site, default {@value Sites#DEFAULT}).
 * Static hosts send no heartbeats and never expire.
 */
public final class HostFile {
    private HostFile() {
    }

    /** Service type wildcard used for host-file entries without {@code services=}. */
    public static final String ANY_SERVICE = "*";

    /** Reads a host file; errors name the file and line. */
    public static List<HostAnnouncement> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<HostAnnouncement> hosts = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash);
            }
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            hosts.add(parseLine(line, file + ":" + (i + 1)));
        }
        return hosts;
    }

    static HostAnnouncement parseLine(String line, String where) throws IOException {
        String[] words = line.split("\\s+");
        String url = words[0];
        try {
            URI uri = URI.create(url);
            if (uri.getScheme() == null || uri.getHost() == null) {
                throw new IllegalArgumentException("not an absolute URL");
            }
        } catch (IllegalArgumentException e) {
            throw new IOException(where + ": bad host URL '" + url + "': " + e.getMessage());
        }
        List<String> services = List.of(ANY_SERVICE);
        Integer capacity = null;
        String binary = null;
        String id = url;
        String site = null;
        for (String w : Arrays.asList(words).subList(1, words.length)) {
            int eq = w.indexOf('=');
            if (eq <= 0) {
                throw new IOException(where + ": expected key=value, got '" + w + "'");
            }
            String key = w.substring(0, eq);
            String value = w.substring(eq + 1);
            switch (key) {
                case "services" -> services = Arrays.stream(value.split(",")).map(String::strip)
                        .filter(s -> !s.isEmpty()).toList();
                case "capacity", "slots" -> {
                    try {
                        capacity = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        throw new IOException(where + ": capacity must be a number, got '" + value + "'");
                    }
                    if (capacity < 1) {
                        throw new IOException(where + ": capacity must be at least 1");
                    }
                }
                case "binary" -> binary = value;
                case "id" -> id = value;
                case "site" -> {
                    try {
                        site = Sites.of(value);
                    } catch (IllegalArgumentException e) {
                        throw new IOException(where + ": " + e.getMessage());
                    }
                }
                default -> throw new IOException(where + ": unknown key '" + key + "' (known: services, capacity, binary, id, site)");
            }
        }
        return new HostAnnouncement(id, url, binary, services, capacity, null, null, null, site);
    }
}
