package org.mpfl.runtime.interp;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * A request-response SOAP 1.2 call, as the {@code invoke} activity makes it: the input string is
 * the body's payload, the answer is the body's content as a string, and a SOAP fault (1.2 or 1.1)
 * becomes a {@link Failure} carrying its code and reason. XML is parsed without DTDs or external
 * entities; the call is bounded by a timeout ({@code mpfl.invoke.timeoutMs}, default 60 s) and by the
 * caller's abort check, polled while waiting.
 */
final class SoapInvoker {
    static final String TIMEOUT_PROPERTY = RuntimeSettings.INVOKE_TIMEOUT_MS.name();
    static final String SOAP12 = "http://www.w3.org/2003/05/soap-envelope";
    static final String SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
    private static final long POLL_MS = 50;
    private static final int MAX_RESPONSE_BYTES = 64 << 20;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();

    /** A failed call: unreachable endpoint, HTTP error, SOAP fault, malformed answer, timeout. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private SoapInvoker() {
    }

    static Duration timeout() {
        return Duration.ofMillis(RuntimeSettings.INVOKE_TIMEOUT_MS.get());
    }

    /**
     * Calls {@code operation} at {@code endpoint} with {@code payload} (XML, may be empty) as the body.
     *
     * @param abortCheck throws when the caller must stop waiting (the domain was aborted)
     * @return the content of the answer's body (its child elements as XML text)
     */
    static String call(URI endpoint, String operation, String payload, Duration timeout, Runnable abortCheck)
            throws Failure {
        String body = payload == null ? "" : payload.strip();
        if (!body.isEmpty()) {
            checkWellFormed(body);
        }
        String envelope = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                + "<soap:Envelope xmlns:soap=\"" + SOAP12 + "\"><soap:Body>" + body + "</soap:Body></soap:Envelope>";
        HttpRequest request = HttpRequest.newBuilder(endpoint).timeout(timeout)
                .header("Content-Type", "application/soap+xml; charset=utf-8; action=\"" + operation.replace("\"", "") + "\"")
                .header("Accept", "application/soap+xml, text/xml")
                .POST(HttpRequest.BodyPublishers.ofString(envelope, StandardCharsets.UTF_8)).build();
        CompletableFuture<HttpResponse<byte[]>> pending = HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
        HttpResponse<byte[]> response = awaitResponse(pending, endpoint, timeout, abortCheck);
        byte[] answer = response.body();
        if (answer.length > MAX_RESPONSE_BYTES) {
            throw new Failure("the answer from " + endpoint + " has " + answer.length + " bytes, more than the limit of "
                    + MAX_RESPONSE_BYTES, null);
        }
        Document doc;
        try {
            doc = parser().parse(new ByteArrayInputStream(answer));
        } catch (SAXException | IOException e) {
            throw new Failure("HTTP " + response.statusCode() + " from " + endpoint + " without a SOAP envelope"
                    + (response.statusCode() / 100 == 2 ? " (" + e.getMessage() + ")" : ""), e);
        }
        Element env = doc.getDocumentElement();
        String ns = env.getNamespaceURI();
        if (!"Envelope".equals(env.getLocalName()) || !(SOAP12.equals(ns) || SOAP11.equals(ns))) {
            throw new Failure("HTTP " + response.statusCode() + " from " + endpoint + ": the answer is not a SOAP envelope"
                    + " (root element " + env.getNodeName() + ")", null);
        }
        Element soapBody = child(env, ns, "Body");
        if (soapBody == null) {
            throw new Failure("the SOAP answer from " + endpoint + " has no Body", null);
        }
        Element fault = child(soapBody, ns, "Fault");
        if (fault != null) {
            throw new Failure("SOAP fault from " + endpoint + " (" + operation + "): " + faultText(fault, ns), null);
        }
        if (response.statusCode() / 100 != 2) {
            throw new Failure("HTTP " + response.statusCode() + " from " + endpoint, null);
        }
        return content(soapBody);
    }

    private static HttpResponse<byte[]> awaitResponse(CompletableFuture<HttpResponse<byte[]>> pending, URI endpoint,
                                                      Duration timeout, Runnable abortCheck) throws Failure {
        long deadline = System.nanoTime() + timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        try {
            while (true) {
                try {
                    return pending.get(POLL_MS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    abortCheck.run();
                    if (System.nanoTime() > deadline) {
                        throw new java.net.http.HttpTimeoutException("request timed out");
                    }
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String why = cause instanceof java.net.http.HttpTimeoutException
                    ? "no answer within " + timeout.toMillis() + " ms (" + TIMEOUT_PROPERTY + ")"
                    : cause instanceof java.net.ConnectException ? "cannot connect" : String.valueOf(cause);
            throw new Failure("invoke of " + endpoint + " failed: " + why, cause);
        } catch (java.net.http.HttpTimeoutException e) {
            throw new Failure("invoke of " + endpoint + " failed: no answer within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted while calling " + endpoint, e);
        } finally {
            pending.cancel(true);
        }
    }

    private static void checkWellFormed(String payload) throws Failure {
        try {
            // wrapped, so that several elements or text are accepted and a DOCTYPE is not
            parser().parse(new InputSource(new StringReader("<payload>" + payload + "</payload>")));
        } catch (SAXException | IOException e) {
            throw new Failure("the input is not well-formed XML: " + e.getMessage(), e);
        }
    }

    private static DocumentBuilder parser() throws Failure {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            return b;
        } catch (ParserConfigurationException e) {
            throw new Failure("no secure XML parser available: " + e.getMessage(), e);
        }
    }

    private static Element child(Element parent, String ns, String localName) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && localName.equals(e.getLocalName()) && ns.equals(e.getNamespaceURI())) {
                return e;
            }
        }
        return null;
    }

    private static String faultText(Element fault, String ns) {
        if (SOAP12.equals(ns)) {
            Element code = child(fault, ns, "Code");
            Element value = code == null ? null : child(code, ns, "Value");
            Element reason = child(fault, ns, "Reason");
            Element text = reason == null ? null : child(reason, ns, "Text");
            return (value == null ? "" : value.getTextContent().strip() + ": ")
                    + (text == null ? "(no reason)" : text.getTextContent().strip());
        }
        String code = textOf(fault, "faultcode");
        String reason = textOf(fault, "faultstring");
        return (code == null ? "" : code + ": ") + (reason == null ? "(no reason)" : reason);
    }

    private static String textOf(Element parent, String localName) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && localName.equals(e.getLocalName())) {
                return e.getTextContent().strip();
            }
        }
        return null;
    }

    /** The body's children as XML text (no declaration); namespaces in scope are declared where used. */
    private static String content(Element body) throws Failure {
        try {
            TransformerFactory tf = TransformerFactory.newInstance();
            tf.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            tf.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            tf.setAttribute(XMLConstants.ACCESS_EXTERNAL_STYLESHEET, "");
            Transformer t = tf.newTransformer();
            t.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            StringWriter out = new StringWriter();
            for (Node n = body.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n.getNodeType() == Node.TEXT_NODE && n.getTextContent().isBlank()) {
                    continue;
                }
                t.transform(new DOMSource(n), new StreamResult(out));
            }
            return out.toString();
        } catch (TransformerException e) {
            throw new Failure("cannot read the answer's body: " + e.getMessage(), e);
        }
    }
}
