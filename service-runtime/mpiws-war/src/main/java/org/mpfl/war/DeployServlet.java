package org.mpfl.war;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.mpfl.runtime.host.ServiceHost;

/**
 * {@code POST /axis2/services/mpfl-deploy?service=NAME} (body: the {@code .aar}): the engine's
 * authenticated deploy operation, the same as {@code mpflc host}'s ({@link ServiceHost#handleDeploy}):
 * the caller must carry the engine's key for this host (or, for a host without credential, be on this
 * machine) before a byte of the archive is read.
 */
public final class DeployServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ServiceHost host = (ServiceHost) getServletContext().getAttribute(MpiwsWebApp.HOST_ATTRIBUTE);
        if (host == null) {
            response.sendError(503, "the MPFL host is not running");
            return;
        }
        // the name from the query string only: getParameter would read a form-encoded body before the check
        String name = null;
        String query = request.getQueryString();
        if (query != null) {
            for (String kv : query.split("&")) {
                if (kv.startsWith("service=")) {
                    name = URLDecoder.decode(kv.substring(8), StandardCharsets.UTF_8);
                }
            }
        }
        ServiceHost.DeployAnswer answer = host.handleDeploy(name, request.getHeader("Authorization"), request.getRemoteAddr(),
                request.getInputStream());
        byte[] text = answer.text().getBytes(StandardCharsets.UTF_8);
        response.setStatus(answer.status());
        response.setContentType("text/plain; charset=UTF-8");
        response.setContentLength(text.length);
        response.getOutputStream().write(text);
    }
}
