package org.mpfl.protocol;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** A parsed {@code Content-Type} value: the media type in lower case and its parameters (names in lower case). */
public record MediaType(String type, Map<String, String> params) {

    public static MediaType parse(String header) {
        if (header == null) {
            return new MediaType("", Map.of());
        }
        int semi = header.indexOf(';');
        String type = (semi < 0 ? header : header.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
        Map<String, String> params = new HashMap<>();
        int i = semi < 0 ? header.length() : semi + 1;
        int n = header.length();
        while (i < n) {
            while (i < n && (header.charAt(i) == ' ' || header.charAt(i) == '\t' || header.charAt(i) == ';')) {
                i++;
            }
            int eq = header.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            String name = header.substring(i, eq).trim().toLowerCase(Locale.ROOT);
            i = eq + 1;
            StringBuilder value = new StringBuilder();
            if (i < n && header.charAt(i) == '"') {
                i++;
                while (i < n && header.charAt(i) != '"') {
                    char ch = header.charAt(i);
                    if (ch == '\\' && i + 1 < n) {
                        ch = header.charAt(++i);
                    }
                    value.append(ch);
                    i++;
                }
                i++; // closing quote
            } else {
                while (i < n && header.charAt(i) != ';') {
                    value.append(header.charAt(i++));
                }
            }
            params.put(name, value.toString().trim());
        }
        return new MediaType(type, params);
    }

    public String param(String name) {
        return params.get(name);
    }

    /**
     * The SOAP 1.2 action of a request: the {@code action} parameter of the multipart type or of
     * the {@code application/soap+xml} type, or inside {@code start-info}.
     */
    public String soapAction() {
        String a = params.get("action");
        if (a != null) {
            return a;
        }
        String startInfo = params.get("start-info");
        if (startInfo != null) {
            return parse(startInfo).params().get("action");
        }
        return null;
    }
}
