package org.mpfl.war;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.mpfl.protocol.MpiwsWsdl;
import org.mpfl.runtime.host.ServiceHost;

/**
 * {@code GET /axis2/services/TYPE?wsdl} of an MPIWS service type answers with the one MPIWS WSDL
 * ({@link MpiwsWsdl}), as {@code mpflc host} does, rather than what Axis2 would generate from the
 * service description; everything else goes on to the {@code AxisServlet}.
 */
public final class WsdlFilter implements Filter {
    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (req instanceof HttpServletRequest request && res instanceof HttpServletResponse response
                && "GET".equals(request.getMethod()) && "wsdl".equalsIgnoreCase(request.getQueryString())) {
            ServiceHost host = (ServiceHost) request.getServletContext().getAttribute(MpiwsWebApp.HOST_ATTRIBUTE);
            String path = request.getPathInfo();
            String type = path == null ? null : path.substring(path.lastIndexOf('/') + 1);
            if (host != null && type != null && host.hasServiceType(type)) {
                byte[] wsdl = MpiwsWsdl.of(type, "MPFL service host " + host.hostId() + " in Tomcat", host.serviceUrl(type))
                        .getBytes(StandardCharsets.UTF_8);
                response.setStatus(200);
                response.setContentType("text/xml; charset=UTF-8");
                response.setContentLength(wsdl.length);
                response.getOutputStream().write(wsdl);
                return;
            }
        }
        chain.doFilter(req, res);
    }
}
