/**
 * The MPIWS web application (module {@code service-runtime/mpiws-war}, {@code axis2.war}): an MPFL service
 * host inside a Jakarta servlet container such as Tomcat 10. {@link org.mpfl.war.MpiwsWebApp}
 * starts the host and hands its Axis2 context to Axis2's {@code AxisServlet}, which serves the MPIWS
 * operations; {@link org.mpfl.war.DeployServlet} is the engine's deploy operation and
 * {@link org.mpfl.war.WsdlFilter} serves the WSDL. Above the runtime's {@code host}
 * package; nothing in the runtime depends on it.
 */
package org.mpfl.war;
