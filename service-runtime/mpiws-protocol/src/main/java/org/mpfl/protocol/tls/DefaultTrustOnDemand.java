package org.mpfl.protocol.tls;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The JDK's default TLS context, made when a connection first needs it: what the HTTP clients of a
 * component without {@code --tls-ca} use. A JDK {@code HttpClient} asks for its context when it is built;
 * the default one reads the JDK's trust store then (about 400 classes and 0.2 s of CPU on this machine's
 * first run), although the clients of {@code mpflc run --local}, the engine and its hosts mostly speak
 * plain {@code http} on loopback. An {@code https} URL still gets exactly the default context: the same
 * trust store, the same checks.
 */
final class DefaultTrustOnDemand extends SSLContextSpi {
    /** The one instance (the default context it stands for is one per JVM too). */
    static final SSLContext CONTEXT = new SSLContext(new DefaultTrustOnDemand(), null, "Default") {
    };

    private DefaultTrustOnDemand() {
    }

    /**
     * Parameters for an HTTP client built with {@link #CONTEXT}: given, so that the client does not ask the
     * context for its defaults when it is built. Empty: the connection keeps the default context's protocols
     * and cipher suites; the client adds host name verification and ALPN to each connection itself.
     */
    static SSLParameters clientParameters() {
        return new SSLParameters();
    }

    private static SSLContext jdkDefault() {
        try {
            return SSLContext.getDefault();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no default TLS context", e);
        }
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random) {
        throw new UnsupportedOperationException("the default TLS context is initialised by the JDK");
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
        return jdkDefault().getSocketFactory();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
        return jdkDefault().getServerSocketFactory();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
        return jdkDefault().createSSLEngine();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
        return jdkDefault().createSSLEngine(host, port);
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
        return jdkDefault().getServerSessionContext();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
        return jdkDefault().getClientSessionContext();
    }

    @Override
    protected SSLParameters engineGetDefaultSSLParameters() {
        return jdkDefault().getDefaultSSLParameters();
    }

    @Override
    protected SSLParameters engineGetSupportedSSLParameters() {
        return jdkDefault().getSupportedSSLParameters();
    }
}
