package org.mpfl.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The XML forms of the {@code run}, {@code status} and {@code abort} bodies (see the WSDL):
 * written by the engine's client, read by the service host, and the reverse for the answers.
 * Parameter values, counters and outputs are JSON text inside their elements.
 */
public final class RunMessages {
    static final ObjectMapper JSON = new ObjectMapper();

    private RunMessages() {
    }

    // ------------------------------------------------------------------ run

    /** The {@code m:run} element. */
    public static String runXml(RunRequest r) {
        StringBuilder sb = new StringBuilder(512 + 160 * r.endpoints().size());
        sb.append("<m:run xmlns:m=\"").append(MpiwsNames.NS).append("\">");
        el(sb, "domainId", r.domainId());
        el(sb, "rank", Integer.toString(r.rank()));
        el(sb, "token", r.token());
        if (r.callbackUrl() != null) {
            el(sb, "callbackUrl", r.callbackUrl());
        }
        if (r.transport() != null) {
            el(sb, "transport", r.transport());
        }
        for (int i = 0; i < r.endpoints().size(); i++) {
            Endpoint e = r.endpoints().get(i);
            sb.append("<m:endpoint rank=\"").append(i).append("\" soapUrl=\"").append(Xml.escape(e.soapUrl())).append('"');
            if (e.binaryAddress() != null) {
                sb.append(" binaryAddress=\"").append(Xml.escape(e.binaryAddress())).append('"');
            }
            if (e.hostId() != null) {
                sb.append(" hostId=\"").append(Xml.escape(e.hostId())).append('"');
            }
            if (!Sites.DEFAULT.equals(e.site())) {
                sb.append(" site=\"").append(Xml.escape(e.site())).append('"');
            }
            if (e.relay() != null) {
                sb.append(" relay=\"").append(Xml.escape(e.relay())).append('"');
            }
            sb.append("/>");
        }
        if (r.processes() != null) {
            for (RunRequest.ProcessSlice p : r.processes()) {
                sb.append("<m:process name=\"").append(Xml.escape(p.name())).append("\" service=\"")
                  .append(Xml.escape(p.service())).append("\" ranks=\"").append(p.ranks()).append("\"/>");
            }
        }
        el(sb, "params", toJson(r.params() == null ? Map.of() : r.params()));
        if (r.resume() != null) {
            sb.append("<m:resume checkpoint=\"").append(r.resume().checkpoint()).append("\">")
              .append(Xml.escape(r.resume().state())).append("</m:resume>");
        }
        sb.append("</m:run>");
        return sb.toString();
    }

    /** Reads an {@code m:run} element (given as XML text of the element). */
    public static RunRequest parseRun(String xml) throws XMLStreamException {
        XMLStreamReader x = Xml.reader(new StringReader(xml));
        String domainId = null;
        String token = null;
        String callback = null;
        String transport = null;
        int rank = -1;
        Map<Integer, Endpoint> endpoints = new java.util.TreeMap<>();
        List<RunRequest.ProcessSlice> processes = new ArrayList<>();
        Map<String, Object> params = Map.of();
        RunRequest.Resume resume = null;
        while (x.hasNext()) {
            if (x.next() != XMLStreamConstants.START_ELEMENT || !MpiwsNames.NS.equals(x.getNamespaceURI())) {
                continue;
            }
            switch (x.getLocalName()) {
                case "domainId" -> domainId = x.getElementText().trim();
                case "rank" -> rank = Integer.parseInt(x.getElementText().trim());
                case "token" -> token = x.getElementText().trim();
                case "callbackUrl" -> callback = emptyToNull(x.getElementText().trim());
                case "transport" -> transport = emptyToNull(x.getElementText().trim());
                case "endpoint" -> endpoints.put(Integer.parseInt(x.getAttributeValue(null, "rank")),
                        new Endpoint(x.getAttributeValue(null, "soapUrl"), x.getAttributeValue(null, "binaryAddress"),
                                x.getAttributeValue(null, "hostId"), site(x.getAttributeValue(null, "site")),
                                x.getAttributeValue(null, "relay")));
                case "process" -> processes.add(new RunRequest.ProcessSlice(x.getAttributeValue(null, "name"),
                        x.getAttributeValue(null, "service"), Integer.parseInt(x.getAttributeValue(null, "ranks"))));
                case "params" -> params = fromJson(x.getElementText());
                case "resume" -> resume = new RunRequest.Resume(Long.parseLong(x.getAttributeValue(null, "checkpoint")),
                        x.getElementText());
                default -> { }
            }
        }
        if (domainId == null || token == null || rank < 0 || endpoints.isEmpty()) {
            throw new XMLStreamException("run needs domainId, rank, token and endpoints");
        }
        List<Endpoint> list = new ArrayList<>();
        int i = 0;
        for (Map.Entry<Integer, Endpoint> e : endpoints.entrySet()) {
            if (e.getKey() != i++) {
                throw new XMLStreamException("endpoint ranks must be 0.." + (endpoints.size() - 1));
            }
            list.add(e.getValue());
        }
        return new RunRequest(domainId, rank, list, processes, params, token, callback, transport, resume);
    }

    // ------------------------------------------------------------------ status

    /** The {@code m:status} element without a proof: the answer has state, progress and counters only. */
    public static String statusXml(String domainId, int rank) {
        return statusXml(domainId, rank, null);
    }

    /**
     * The {@code m:status} element.
     *
     * @param proof {@code new DomainToken(token).proveStatus(domainId, rank)}, which entitles the answer to
     *              the rank's outputs and failure message, or {@code null} for none
     */
    public static String statusXml(String domainId, int rank, byte[] proof) {
        return "<m:status xmlns:m=\"" + MpiwsNames.NS + "\"><m:domainId>" + Xml.escape(domainId)
                + "</m:domainId><m:rank>" + rank + "</m:rank>"
                + (proof == null ? "" : "<m:proof>" + Base64.getEncoder().encodeToString(proof) + "</m:proof>")
                + "</m:status>";
    }

    /** The {@code m:statusResponse} element. */
    public static String statusResponseXml(RankStatus s) {
        StringBuilder sb = new StringBuilder(256);
        sb.append("<m:statusResponse xmlns:m=\"").append(MpiwsNames.NS).append("\">");
        el(sb, "state", s.state());
        if (!Double.isNaN(s.progressValue())) {
            sb.append("<m:progress value=\"").append(s.progressValue()).append("\" total=\"")
              .append(s.progressTotal()).append("\"/>");
        }
        if (s.countersJson() != null) {
            el(sb, "counters", s.countersJson());
        }
        for (Map.Entry<String, String> o : s.outputsJson().entrySet()) {
            sb.append("<m:output name=\"").append(Xml.escape(o.getKey())).append("\">")
              .append(Xml.escape(o.getValue())).append("</m:output>");
        }
        if (s.failure() != null) {
            el(sb, "failure", s.failure());
            // an element of its own after it, not an attribute of failure: a client generated from the WSDL before the
            // kind existed (the Python zeep client) still reads failure as the string it was
            if (s.fault() != null) {
                el(sb, "fault", s.fault().name());
            }
        }
        sb.append("</m:statusResponse>");
        return sb.toString();
    }

    /** Reads a status answer from a whole SOAP envelope or the bare element. */
    public static RankStatus parseStatusResponse(String xml) throws XMLStreamException {
        XMLStreamReader x = Xml.reader(new StringReader(xml));
        String state = null;
        double value = Double.NaN;
        double total = Double.NaN;
        String counters = null;
        String failure = null;
        FaultKind fault = null;
        Map<String, String> outputs = new LinkedHashMap<>();
        while (x.hasNext()) {
            if (x.next() != XMLStreamConstants.START_ELEMENT || !MpiwsNames.NS.equals(x.getNamespaceURI())) {
                continue;
            }
            switch (x.getLocalName()) {
                case "state" -> state = x.getElementText().trim();
                case "progress" -> {
                    value = Double.parseDouble(x.getAttributeValue(null, "value"));
                    total = Double.parseDouble(x.getAttributeValue(null, "total"));
                }
                case "counters" -> counters = x.getElementText();
                case "output" -> {
                    String name = x.getAttributeValue(null, "name");
                    outputs.put(name, x.getElementText());
                }
                case "failure" -> failure = x.getElementText();
                case "fault" -> {
                    // a kind this side does not know is no kind: the workflow's, as a failure that says none
                    String kind = x.getElementText();
                    fault = java.util.Arrays.stream(FaultKind.values()).filter(k -> k.name().equals(kind)).findFirst().orElse(null);
                }
                default -> { }
            }
        }
        if (state == null) {
            throw new XMLStreamException("status answer without a state");
        }
        return new RankStatus(state, value, total, counters, outputs, failure, fault);
    }

    // ------------------------------------------------------------------ helpers

    private static void el(StringBuilder sb, String name, String text) {
        sb.append("<m:").append(name).append('>').append(Xml.escape(text)).append("</m:").append(name).append('>');
    }

    /** An endpoint's site attribute; a malformed one is a malformed request, not a crash. */
    private static String site(String name) throws XMLStreamException {
        try {
            return Sites.of(name);
        } catch (IllegalArgumentException e) {
            throw new XMLStreamException("endpoint: " + e.getMessage());
        }
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /** JSON text of a value (outputs, params, counters). */
    public static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("value cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** A JSON object as a map (numbers as Integer/Long/Double, arrays as lists). */
    public static Map<String, Object> fromJson(String json) {
        if (json == null || json.isBlank()) {
            return Map.of();
        }
        try {
            return JSON.readValue(json, new TypeReference<LinkedHashMap<String, Object>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("bad JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Any JSON value. */
    public static Object parseJsonValue(String json) {
        try {
            return JSON.readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("bad JSON: " + e.getOriginalMessage(), e);
        }
    }
}
