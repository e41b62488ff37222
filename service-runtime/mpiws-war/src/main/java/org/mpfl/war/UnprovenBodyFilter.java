package org.mpfl.war;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.mpfl.runtime.host.ServiceHost;
import org.mpfl.runtime.host.UnprovenBody;

/**
 * The stand-alone host's bound on a body before its request proves a credential, in Tomcat: a request to
 * {@code /axis2/services/*} without the engine's key for this host (without an engine: not from this machine) has its
 * body read at most {@code mpfl.host.unprovenBodyBytes} (1 MiB), however it comes (a {@code Content-Length}, chunked,
 * HTTP/2 DATA frames), until a store's domain-token proof — read from its header, before its payload — lifts the bound.
 * Axis2's object model holds an element's whole text in memory ({@code status} and {@code abort} serialise their
 * request), and Tomcat bounds no body a servlet reads itself: without this a caller with no credential made Tomcat hold
 * whatever it sent (docs/security.md, "Bodies read through Axis2"). Past the bound the read fails and the answer ends the
 * connection; Tomcat then discards at most its {@code maxSwallowSize} (2 MiB) of the rest, allocating nothing.
 *
 * <p>The bound counts bytes read, not the announced length: stores between ranks carry no header credential, and a
 * proved store may be larger than the bound.
 */
public final class UnprovenBodyFilter implements Filter {
    private final long bound = UnprovenBody.configuredBound();

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        ServiceHost host = (ServiceHost) req.getServletContext().getAttribute(MpiwsWebApp.HOST_ATTRIBUTE);
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response) || host == null
                || host.acceptsEngineCall(request.getHeader("Authorization"), request.getRemoteAddr())) {
            chain.doFilter(req, res);
            return;
        }
        Bounded bounded = new Bounded(request, response, bound);
        try {
            chain.doFilter(bounded, res);
        } finally {
            bounded.release();
        }
    }

    /** The request with its body read through an {@link UnprovenBody} this thread serves. */
    private static final class Bounded extends HttpServletRequestWrapper {
        private final HttpServletResponse response;
        private final long bound;
        private BoundedStream stream;

        Bounded(HttpServletRequest request, HttpServletResponse response, long bound) {
            super(request);
            this.response = response;
            this.bound = bound;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                ServletInputStream in = super.getInputStream();
                stream = new BoundedStream(in, new UnprovenBody(in, bound, this::endConnection).servedByThisThread());
            }
            return stream;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            String encoding = getCharacterEncoding();
            Charset cs = encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
            return new BufferedReader(new InputStreamReader(getInputStream(), cs));
        }

        /** Past the bound: the answer, whatever the servlet makes of the failed read, ends the connection. */
        private void endConnection() {
            if (!response.isCommitted()) {
                response.setHeader("Connection", "close");
            }
        }

        void release() {
            if (stream != null) {
                stream.body.release();
            }
        }
    }

    /** A servlet input stream reading through the bound. */
    private static final class BoundedStream extends ServletInputStream {
        private final ServletInputStream raw;
        private final UnprovenBody body;

        BoundedStream(ServletInputStream raw, UnprovenBody body) {
            this.raw = raw;
            this.body = body;
        }

        @Override
        public int read() throws IOException {
            return body.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return body.read(b, off, len);
        }

        @Override
        public long skip(long n) throws IOException {
            return body.skip(n);
        }

        @Override
        public int available() throws IOException {
            return body.available();
        }

        @Override
        public boolean isFinished() {
            return raw.isFinished();
        }

        @Override
        public boolean isReady() {
            return raw.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            raw.setReadListener(listener);
        }
    }
}
