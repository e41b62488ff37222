package org.mpfl.war;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.mpfl.protocol.HostCredential;

/**
 * The settings of the MPIWS web application. Each key is looked up, first found wins, as
 * <ol>
 *   <li>a context parameter (web.xml, or a {@code <Parameter>} in the Tomcat context file),</li>
 *   <li>a system property ({@code -Dmpfl.baseUrl=…} in {@code CATALINA_BASE/bin/setenv.sh}),</li>
 *   <li>a line of {@code CATALINA_BASE/conf/mpfl-host.properties}.</li>
 * </ol>
 * The host credential is a file ({@value #CREDENTIAL_FILE}, by default
 * {@code CATALINA_BASE/conf/mpfl-host.credential} when it exists) or the environment variable
 * {@value HostCredential#ENV}; never a parameter value, which Tomcat's manager and logs may show.
 *
 * @param baseUrl        {@value #BASE_URL}: {@code http(s)://ADDR:PORT} at which the engine and the other hosts
 *                       reach this Tomcat (required)
 * @param credential     the host credential, or {@code null}: no engine, deploy and {@code run} from this machine only
 * @param engineUrl      {@value #ENGINE}, else the credential's engine; {@code null}: join no engine
 * @param capacity       {@value #CAPACITY}: ranks this host should take (default: the processors)
 * @param binary         {@value #BINARY}: whether to offer the binary channel (default true)
 * @param bind           {@value #BIND}: address of the binary channel (default 127.0.0.1)
 * @param advertise      {@value #ADVERTISE}: host name put into the binary address, or {@code null} for {@code bind}
 * @param servicesDir    {@value #SERVICES}: a directory of {@code .aar} archives deployed at start, or {@code null}
 */
public record WebAppSettings(String baseUrl, HostCredential credential, String engineUrl, int capacity, boolean binary,
                             String bind, String advertise, Path servicesDir) {
    /** Key: the container's base URL. */
    public static final String BASE_URL = "mpfl.baseUrl";
    /** Key: the credential file. */
    public static final String CREDENTIAL_FILE = "mpfl.credentialFile";
    /** Key: the engine's URL (default: the credential's). */
    public static final String ENGINE = "mpfl.engine";
    /** Key: the capacity announced to the engine. */
    public static final String CAPACITY = "mpfl.capacity";
    /** Key: {@code true}/{@code false}, the binary channel. */
    public static final String BINARY = "mpfl.binary";
    /** Key: the binary channel's address. */
    public static final String BIND = "mpfl.bind";
    /** Key: the advertised host name of the binary channel. */
    public static final String ADVERTISE = "mpfl.advertise";
    /** Key: a directory of service archives deployed at start. */
    public static final String SERVICES = "mpfl.services";
    /** The properties file under {@code CATALINA_BASE/conf}. */
    public static final String PROPERTIES_FILE = "mpfl-host.properties";
    /** The default credential file under {@code CATALINA_BASE/conf}. */
    public static final String DEFAULT_CREDENTIAL_FILE = "mpfl-host.credential";

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
            }
        }
        UnaryOperator<String> get = key -> {
            String v = contextParameter.apply(key);
            if (v == null || v.isBlank()) {
                v = System.getProperty(key);
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
                credential = HostCredential.read(Path.of(credentialFile));
            } else if (defaultFile != null && Files.isRegularFile(defaultFile)) {
                credential = HostCredential.read(defaultFile);
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
        return new WebAppSettings(baseUrl, credential, engine, capacity, !"false".equals(b), bind == null ? "127.0.0.1" : bind,
                get.apply(ADVERTISE), services == null ? null : Path.of(services));
    }
}
