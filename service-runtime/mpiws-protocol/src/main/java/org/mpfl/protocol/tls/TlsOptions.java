package org.mpfl.protocol.tls;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;

/**
 * The TLS flags ({@link TlsSettings#OPTIONS}) as options of an {@code mpflc} command: declared once
 * here for every command that takes them, read back into {@link TlsSettings}.
 */
public final class TlsOptions {
    private TlsOptions() {
    }

    /** {@code --tls-ca} alone: what a client command (run, status, …) needs. */
    public static ArgumentSpec client(ArgumentSpec spec) {
        return spec.value("--" + TlsSettings.CA, "CA.pem", "trust this CA for an https engine (else the JDK's public CAs)");
    }

    /** Every TLS flag: what a component that serves TLS (up, host, slurm's hosts) takes. */
    public static ArgumentSpec serving(ArgumentSpec spec) {
        return client(spec)
                .value("--" + TlsSettings.CERT, "CERT.pem", "this component's certificate chain (PEM, leaf first); with --"
                        + TlsSettings.KEY)
                .value("--" + TlsSettings.KEY, "KEY.pem", "its unencrypted PKCS#8 key (PEM)")
                .value("--" + TlsSettings.KEYSTORE, "FILE.p12", "key and certificate chain as PKCS#12, instead of --"
                        + TlsSettings.CERT + "/--" + TlsSettings.KEY)
                .value("--" + TlsSettings.KEYSTORE_PASSWORD_FILE, "FILE", "the keystore's password (else $"
                        + TlsSettings.PASSWORD_ENV + ")");
    }

    /** The TLS flags given, by {@link TlsSettings#OPTIONS} name. */
    public static Map<String, String> given(Arguments a) {
        Map<String, String> out = new LinkedHashMap<>();
        a.given().forEach((k, v) -> {
            if (k.startsWith("--") && TlsSettings.OPTIONS.contains(k.substring(2))) {
                out.put(k.substring(2), v);
            }
        });
        return out;
    }

    /** The TLS settings of the flags given; {@link TlsSettings#NONE} without any. */
    public static TlsSettings of(Arguments a) throws IOException {
        return TlsSettings.fromOptions(given(a));
    }
}
