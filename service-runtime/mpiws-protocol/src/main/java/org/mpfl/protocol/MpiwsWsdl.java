package org.mpfl.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The WSDL 1.1 description of one MPIWS service type, from the one template of this module
 * ({@code org/mpfl/protocol/mpiws.wsdl}): document/literal, SOAP 1.2 binding, the five operations
 * {@code run}, {@code store}, {@code bstore}, {@code status}, {@code abort}, and the MTOM policy
 * assertion on the binding (the payload of {@code store}/{@code bstore} is {@code xs:base64Binary},
 * sent as an XOP attachment). {@code store}, {@code bstore} and {@code abort} are one-way in WSDL 1.1
 * terms; the service runs them robust in-only, i.e. answers HTTP 202 on success and a SOAP 1.2 fault
 * otherwise.
 *
 * <p>The compiler writes this text into every service archive and the service host serves it at
 * {@code ?wsdl}: both come from here, so they cannot drift apart (they did, as two hand-kept copies).
 */
public final class MpiwsWsdl {
    /** Class-path resource of the template, next to this class. */
    public static final String TEMPLATE = "mpiws.wsdl";

    private static final String TEXT = load();

    private MpiwsWsdl() {
    }

    /**
     * The WSDL text of a service.
     *
     * @param serviceType the service name (also the last path segment of the address)
     * @param about       what the service is, for the WSDL's documentation (e.g. its workflow and process)
     * @param address     the service's SOAP address
     */
    public static String of(String serviceType, String about, String address) {
        return TEXT.replace("${SERVICE}", Xml.escape(serviceType))
                .replace("${ABOUT}", Xml.escape(about))
                .replace("${ADDRESS}", Xml.escape(address));
    }

    /** The template itself, placeholders unfilled. */
    public static String template() {
        return TEXT;
    }

    private static String load() {
        try (InputStream in = MpiwsWsdl.class.getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException("the MPIWS WSDL template " + TEMPLATE + " is missing from mpiws-protocol");
            }
            // the template's leading comment is for its maintainers (it names the placeholders): not served
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceFirst("(?s)<!--.*?-->\\s*", "");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MPIWS WSDL template", e);
        }
    }
}
