package org.mpfl.war;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.mpfl.ir.settings.Setting;
import org.mpfl.protocol.HostCredential;
import org.mpfl.ir.spelling.Suggestions;
import org.mpfl.protocol.Sites;

/**
 * The settings of the MPIWS web application. Each key is looked up, first found wins, as
 * <ol>
 *   <li>a context parameter (web.xml, or a {@code <Parameter>} in the Tomcat context file),</li>
 *   <li>a system property ({@code -Dmpfl.baseUrl=…} in {@code CATALINA_BASE/bin/setenv.sh}),</li>
 *   <li>a line of {@code CATALINA_BASE/conf/mpfl-host.properties}.</li>
 * </ol>
 * The host credential is a file ({@code mpfl.credentialFile}, by default
 * {@code CATALINA_BASE/conf/mpfl-host.credential} when it exists) or the environment variable
 * {@value HostCredential#ENV}; never a parameter value, which Tomcat's manager and logs may show.
 *
 * @param baseUrl        {@code mpfl.baseUrl}: {@code http(s)://ADDR:PORT} at which the engine and the other hosts
 *                       reach this Tomcat (required)
 * @param credential     the host credential, or {@code null}: no engine, deploy and {@code run} from this machine only
 * @param engineUrl      {@code mpfl.engine}, else the credential's engine; {@code null}: join no engine
 * @param capacity       {@code mpfl.capacity}: ranks this host should take (default: the processors)
 * @param binary         {@code mpfl.binary}: whether to offer the binary channel (default true)
 * @param bind           {@code mpfl.bind}: address of the binary channel (default 127.0.0.1)
 * @param advertise      {@code mpfl.advertise}: host name put into the binary address, or {@code null} for {@code bind}
 * @param servicesDir    {@code mpfl.services}: a directory of {@code .aar} archives deployed at start, or {@code null}
 * @param site           {@code mpfl.site}: the site this host is in, announced to the engine (default
 *                       {@value Sites#DEFAULT}; see {@link Sites})
 */
public record WebAppSettings(String baseUrl, HostCredential credential, String engineUrl, int capacity, boolean binary,
                             String bind, String advertise, Path servicesDir, String site) {
    /** Key: the container's base URL. */
    public static final Setting<String> BASE_URL_SETTING = key("mpfl.baseUrl", "required",
            "http(s)://ADDR:PORT at which the engine and the other hosts reach this Tomcat");
    /** Key: the credential file. */
    public static final Setting<String> CREDENTIAL_FILE_SETTING = key("mpfl.credentialFile", "CATALINA_BASE/conf/mpfl-host.credential",
            "the host's credential file (else $MPFL_HOST_CREDENTIAL)");
    /** Key: the engine's URL (default: the credential's). */
    public static final Setting<String> ENGINE_SETTING = key("mpfl.engine", "the credential's engine", "the engine to join");
    /** Key: the capacity announced to the engine. */
    public static final Setting<String> CAPACITY_SETTING = key("mpfl.capacity", "the number of processors",
            "ranks this host should take");
    /** Key: {@code true}/{@code false}, the binary channel. */
    public static final Setting<String> BINARY_SETTING = key("mpfl.binary", "true", "whether to offer the binary channel");
    /** Key: the binary channel's address. */
    public static final Setting<String> BIND_SETTING = key("mpfl.bind", "127.0.0.1", "address of the binary channel");
    /** Key: the advertised host name of the binary channel. */
    public static final Setting<String> ADVERTISE_SETTING = key("mpfl.advertise", "mpfl.bind",
            "host name put into the binary channel's address");
    /** Key: a directory of service archives deployed at start. */
    public static final Setting<String> SERVICES_SETTING = key("mpfl.services", "none",
            "a directory of .aar service archives deployed at start");
    /** Key: the site this host is in. */
    public static final Setting<String> SITE_SETTING = key("mpfl.site", Sites.DEFAULT,
            "the site this host is in (the engine packs a run's ranks within one site while it can)");

    public static final String BASE_URL = BASE_URL_SETTING.name();
    public static final String CREDENTIAL_FILE = CREDENTIAL_FILE_SETTING.name();
    public static final String ENGINE = ENGINE_SETTING.name();
    public static final String CAPACITY = CAPACITY_SETTING.name();
    public static final String BINARY = BINARY_SETTING.name();
    public static final String BIND = BIND_SETTING.name();
    public static final String ADVERTISE = ADVERTISE_SETTING.name();
    public static final String SERVICES = SERVICES_SETTING.name();
    public static final String SITE = SITE_SETTING.name();

    /** A key of the web application: a system property here, also a context parameter or a line of the properties file. */
    private static Setting<String> key(String name, String defaultText, String description) {
        return Setting.textProperty(name, null, defaultText, description
                + " (also a context parameter or a line of CATALINA_BASE/conf/mpfl-host.properties)");
    }

    /** Every key of the application, in the order of the documentation. */
    static final List<String> KEYS = List.of(BASE_URL, CAPACITY, BINARY, BIND, ADVERTISE, SITE, ENGINE, SERVICES, CREDENTIAL_FILE);

    /** The properties file under {@code CATALINA_BASE/conf}. */
    public static final String PROPERTIES_FILE = "mpfl-host.properties";
    /** The default credential file under {@code CATALINA_BASE/conf}. */
    public static final String DEFAULT_CREDENTIAL_FILE = "mpfl-host.credential";

    /**
     * A credential file as {@code mpflc host} reads it (mode 0600, else refused), saying what to do when Tomcat's user
     * cannot read it: the file made as root is the common case (Debian runs Tomcat as {@code tomcat}).
     */
    private static HostCredential privateCredential(Path file) throws IOException {
        try {
            return HostCredential.readPrivate(file);
        } catch (IOException e) {
            if (e.getCause() instanceof java.nio.file.AccessDeniedException) {
                String user = System.getProperty("user.name");
                throw new IOException("cannot read the host credential " + e.getMessage() + " (it must belong to the user Tomcat"
                        + " runs as, " + user + ": chown " + user + " " + file + "; chmod 600 " + file + ")", e);
            }
            throw e;
        }
    }

    /**
     * Reads the settings.
     *
     * @param contextParameter the servlet context's init parameters ({@code null} when absent)
     * @param catalinaBase     {@code CATALINA_BASE}, or {@code null} outside Tomcat
     * @param environment      the process environment ({@code System::getenv})
     * @throws IOException with a message that names the setting at fault
     */
    public static WebAppSettings read(UnaryOperator<String> contextParameter, Path catalinaBase,
            UnaryOperator<String> environment) throws IOException {
        Properties file = new Properties();
        if (catalinaBase != null) {
            Path p = catalinaBase.resolve("conf").resolve(PROPERTIES_FILE);
            if (Files.isRegularFile(p)) {
                try (InputStream in = Files.newInputStream(p)) {
                    file.load(in);
                }
                for (String key : file.stringPropertyNames()) {
                    if (!KEYS.contains(key)) {
                        // a misspelt key would be ignored and its default used without a word (mpfl.capacty=4: capacity 2)
                        throw new IOException(p + ": " + key + " is not a setting of this file" + Suggestions.didYouMean(key, KEYS)
                                + " (its settings: " + String.join(", ", KEYS) + "; the runtime's own settings are system"
                                + " properties, -D… in CATALINA_BASE/bin/setenv.sh)");
                    }
                    if (file.getProperty(key).matches("(?s).*\\s#.*")) {
                        // Java properties have no trailing comments: "x=1  # note" is the value "1  # note"
                        throw new IOException(p + ": the value of " + key + " has a '#' after it (\"" + file.getProperty(key).strip()
                                + "\"): a properties file has no comments after values, so it would be part of the value;"
                                + " put the comment on a line of its own");
                    }
                }
            }
        }
        UnaryOperator<String> get = key -> {
            String v = contextParameter.apply(key);
            if (v == null || v.isBlank()) {
                v = System.getProperty(key); // the declared keys above, read where a context parameter and the file are
            }
            if (v == null || v.isBlank()) {
                v = file.getProperty(key);
            }
            return v == null || v.isBlank() ? null : v.trim();
        };
        String baseUrl = get.apply(BASE_URL);
        if (baseUrl == null) {
            throw new IOException(BASE_URL + " is not set: the http(s)://ADDR:PORT at which the engine and the other hosts"
                    + " reach this Tomcat (context parameter, -D" + BASE_URL + "=… or CATALINA_BASE/conf/" + PROPERTIES_FILE + ")");
        }
        HostCredential credential;
        String credentialFile = get.apply(CREDENTIAL_FILE);
        Path defaultFile = catalinaBase == null ? null : catalinaBase.resolve("conf").resolve(DEFAULT_CREDENTIAL_FILE);
        try {
            if (credentialFile != null) {
                credential = privateCredential(Path.of(credentialFile));
            } else if (defaultFile != null && Files.isRegularFile(defaultFile)) {
                credential = privateCredential(defaultFile);
            } else if (environment.apply(HostCredential.ENV) != null && !environment.apply(HostCredential.ENV).isBlank()) {
                credential = HostCredential.parse(environment.apply(HostCredential.ENV), "$" + HostCredential.ENV);
            } else {
                credential = null;
            }
        } catch (IllegalArgumentException e) {
            throw new IOException("the host credential: " + e.getMessage(), e);
        }
        String engine = get.apply(ENGINE);
        if (engine == null && credential != null) {
            engine = credential.engineUrl();
        }
        if (engine != null && credential == null) {
            throw new IOException(ENGINE + " " + engine + " needs this host's credential: " + CREDENTIAL_FILE
                    + " or CATALINA_BASE/conf/" + DEFAULT_CREDENTIAL_FILE + " or $" + HostCredential.ENV
                    + " (make one on the engine's machine with 'mpflc host-token --engine URL -o F')");
        }
        int capacity = Runtime.getRuntime().availableProcessors();
        String c = get.apply(CAPACITY);
        if (c != null) {
            try {
                capacity = Integer.parseInt(c);
            } catch (NumberFormatException e) {
                throw new IOException(CAPACITY + " must be a number, got " + c);
            }
        }
        String b = get.apply(BINARY);
        if (b != null && !b.equals("true") && !b.equals("false")) {
            throw new IOException(BINARY + " must be true or false, got " + b);
        }
        String services = get.apply(SERVICES);
        String bind = get.apply(BIND);
        String site;
        try {
            site = Sites.of(get.apply(SITE));
        } catch (IllegalArgumentException e) {
            throw new IOException(SITE + ": " + e.getMessage());
        }
        return new WebAppSettings(baseUrl, credential, engine, capacity, !"false".equals(b), bind == null ? "127.0.0.1" : bind,
                get.apply(ADVERTISE), services == null ? null : Path.of(services), site);
    }
}
