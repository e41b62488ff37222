package org.mpfl.engine.rest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Locale;
import org.apache.camel.Exchange;
import org.mpfl.engine.access.Caller;
import org.mpfl.engine.access.Role;
import org.mpfl.engine.json.Json;

/**
 * What every endpoint reads from a request the same way: path and query parameters (bounded whole numbers,
 * instants), the JSON body, and the role of the caller the {@link AccessFilter} admitted. Each refusal is
 * an {@link ApiException} with the status the API documents (400, 401, 403).
 */
final class Requests {
    private Requests() {
    }

    static String param(Exchange ex, String name) {
        return ex.getIn().getHeader(name, String.class);
    }

    /** A text field of a JSON body, {@code null} when absent or null. */
    static String text(JsonNode body, String field) {
        return body.hasNonNull(field) ? body.get(field).asText() : null;
    }

    static JsonNode body(Exchange ex) throws ApiException {
        JsonNode body = optionalBody(ex);
        if (body == null) {
            throw new ApiException(400, "a JSON body is required");
        }
        if (!body.isObject()) {
            throw new ApiException(400, "the body must be a JSON object");
        }
        return body;
    }

    /** The JSON body, or {@code null} when the request has none (the body is read once: a stream). */
    static JsonNode optionalBody(Exchange ex) throws ApiException {
        String text = bodyText(ex);
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Json.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new ApiException(400, notJson(e));
        }
    }

    /**
     * Why a body is not JSON, in the parser's words without its internals: Jackson's message ends in its source
     * description ({@code [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)]}) and names its
     * limits by their getters ({@code from `StreamReadConstraints.getMaxNestingDepth()`}), which told a client how the
     * engine is built and nothing about its body; the line and column do.
     */
    static String notJson(IOException e) {
        if (!(e instanceof com.fasterxml.jackson.core.JsonProcessingException j)) {
            return "the body could not be read as JSON";
        }
        String what = String.valueOf(j.getOriginalMessage()).replaceAll(", from `[^`]*`", "").strip();
        com.fasterxml.jackson.core.JsonLocation at = j.getLocation();
        return "the body is not valid JSON: " + what
                + (at == null || at.getLineNr() < 1 ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")");
    }

    /**
     * The body as text, in the charset its {@code Content-Type} names ({@code null}: none); a charset Java does not know
     * is the caller's mistake (400), where Camel's conversion failure became a 500 naming its classes. A body of another
     * type than JSON is refused (415, {@link #requireJson}).
     */
    static String bodyText(Exchange ex) throws ApiException {
        String text = decodedBody(ex);
        if (text != null && !text.isEmpty()) {
            requireJson(ex.getIn().getHeader(Exchange.CONTENT_TYPE, String.class));
        }
        return text;
    }

    /**
     * Refuses a body its {@code Content-Type} says is not JSON (415 naming the type the endpoint takes): a {@code
     * text/plain} or form body ({@code curl -d} sends {@code application/x-www-form-urlencoded}) was parsed as JSON all
     * the same, and the same bytes would be answered otherwise once the client or a proxy went by the type. A body
     * without a type is read as JSON, the only type the API takes; {@code application/json} may carry a charset, and a
     * {@code +json} type ({@code application/merge-patch+json}) is JSON too.
     */
    static void requireJson(String contentType) throws ApiException {
        if (contentType == null || contentType.isBlank()) {
            return;
        }
        String type = org.mpfl.protocol.MediaType.parse(contentType).type();
        if (!type.equals("application/json") && !(type.startsWith("application/") && type.endsWith("+json"))) {
            throw new ApiException(415, "this endpoint takes a JSON body (Content-Type: application/json), not " + type);
        }
    }

    private static String decodedBody(Exchange ex) throws ApiException {
        try {
            return ex.getIn().getBody(String.class);
        } catch (org.apache.camel.TypeConversionException e) {
            if (e.getCause() instanceof java.nio.charset.UnsupportedCharsetException
                    || e.getCause() instanceof java.nio.charset.IllegalCharsetNameException) {
                throw new ApiException(400, "the body's charset (Content-Type) is not supported: send UTF-8");
            }
            throw e;
        }
    }

    /**
     * Why a JSON body does not make a {@code what} (a host announcement), naming the field and what it must be: Jackson's
     * message named the engine's classes ({@code java.lang.Integer}, {@code org.mpfl.engine.registry.HostAnnouncement})
     * and its source description, and said nothing a client could act on.
     */
    static String notA(String what, IOException e) {
        if (!(e instanceof com.fasterxml.jackson.databind.JsonMappingException m) || m.getPath().isEmpty()) {
            return what + ": " + notJson(e);
        }
        StringBuilder field = new StringBuilder();
        for (com.fasterxml.jackson.databind.JsonMappingException.Reference r : m.getPath()) {
            field.append(r.getFieldName() != null ? (field.isEmpty() ? "" : ".") + r.getFieldName() : "[" + r.getIndex() + "]");
        }
        Class<?> type = m instanceof com.fasterxml.jackson.databind.exc.MismatchedInputException mi ? mi.getTargetType()
                : m.getCause() instanceof com.fasterxml.jackson.core.exc.InputCoercionException ic ? ic.getTargetType() : null;
        return what + ": '" + field + "' must be " + kindOf(type);
    }

    private static String kindOf(Class<?> type) {
        if (type == null) {
            return "of the type docs/openapi.yaml gives";
        } else if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number from " + (type == Integer.class || type == int.class ? Integer.MIN_VALUE + " to " + Integer.MAX_VALUE
                    : Long.MIN_VALUE + " to " + Long.MAX_VALUE);
        } else if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        } else if (type == String.class) {
            return "a string";
        } else if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        } else if (java.util.Map.class.isAssignableFrom(type)) {
            return "an object";
        }
        return "of the type docs/openapi.yaml gives";
    }

    /**
     * Refuses a body field of another JSON type than the API documents (400 naming the field); an absent or null field
     * passes. Such a field was taken as absent or as its text: {@code "params": [1]} started a run with the
     * workflow's defaults, {@code "archives": "x"} without its archives, {@code "workflow": 123} looked for a workflow
     * named 123.
     *
     * @param texts   fields that must be strings
     * @param objects fields that must be objects
     * @param arrays  fields that must be arrays
     */
    static void requireTypes(JsonNode body, java.util.List<String> texts, java.util.List<String> objects, java.util.List<String> arrays)
            throws ApiException {
        for (String f : texts) {
            if (body.hasNonNull(f) && !body.get(f).isTextual()) {
                throw new ApiException(400, "'" + f + "' must be a string");
            }
        }
        for (String f : objects) {
            if (body.hasNonNull(f) && !body.get(f).isObject()) {
                throw new ApiException(400, "'" + f + "' must be an object");
            }
        }
        for (String f : arrays) {
            if (body.hasNonNull(f) && !body.get(f).isArray()) {
                throw new ApiException(400, "'" + f + "' must be an array of {\"service\": NAME, \"archive\": BASE64}");
            }
        }
    }

    static String blankless(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** A whole-number query parameter within bounds ({@code dflt} when absent), or a 400 answer. */
    static long whole(Exchange ex, String name, long dflt, long min, long max) throws ApiException {
        String s = blankless(param(ex, name));
        if (s == null) {
            return dflt;
        }
        try {
            long v = Long.parseLong(s);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new ApiException(400, name + " must be a whole number from " + min + " to " + max + ", not '" + s + "'");
    }

    /** A time query parameter: epoch milliseconds or an ISO-8601 instant ({@code 2026-11-29T02:00:00Z}). */
    static Long epochMs(Exchange ex, String name) throws ApiException {
        String s = blankless(param(ex, name));
        if (s == null) {
            return null;
        }
        if (s.chars().allMatch(Character::isDigit)) {
            return whole(ex, name, 0, 0, Long.MAX_VALUE);
        }
        try {
            return java.time.Instant.parse(s).toEpochMilli();
        } catch (java.time.format.DateTimeParseException e) {
            throw new ApiException(400, name + " must be epoch milliseconds or an ISO-8601 instant such as 2026-11-29T02:00:00Z, not '" + s + "'");
        }
    }

    /** 401/403 unless the caller holds the engine token or an admin's token. */
    static void requireAdmin(Exchange ex) throws ApiException {
        requireRole(ex, Role.ADMIN);
    }

    /**
     * 401/403 unless the caller may send service archives with a run or a workflow: admins only, since an
     * archive is code every host will run; the refusal says so, where "this needs the admin role" left an
     * operator starting a run from a file wondering why a run needs it.
     */
    static Caller requireArchiveSender(Exchange ex) throws ApiException {
        Caller c = AccessFilter.caller(ex);
        if (c.kind() != Caller.Kind.ANONYMOUS && c.kind() != Caller.Kind.HOST && !c.role().includes(Role.ADMIN)) {
            throw ApiException.roleTooLow("sending service archives (code for the hosts) needs the admin role; " + c.name()
                    + " is " + c.role().name().toLowerCase(Locale.ROOT));
        }
        return requireRole(ex, Role.ADMIN);
    }

    /**
     * 401/403 unless the caller the access filter admitted has {@code role} (the filter checked the
     * route already; this guards what only the body tells, such as archives, which put code on hosts).
     */
    static Caller requireRole(Exchange ex, Role role) throws ApiException {
        Caller c = AccessFilter.caller(ex);
        if (c.kind() == Caller.Kind.ANONYMOUS || c.kind() == Caller.Kind.HOST) {
            throw new ApiException(401, ex.getIn().getHeader("Authorization") == null
                    ? "this request needs 'Authorization: Bearer <engine token>'" : "wrong engine token");
        }
        if (!c.role().includes(role)) {
            throw ApiException.roleTooLow("this needs the " + role.name().toLowerCase(Locale.ROOT) + " role");
        }
        return c;
    }
}
