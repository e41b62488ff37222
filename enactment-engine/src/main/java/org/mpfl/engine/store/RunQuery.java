package org.mpfl.engine.store;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which stored runs to list and in what order ({@code GET /api/runs}'s query parameters): filters that
 * are {@code null} do not filter. {@code text} matches a part of the run id or of the workflow name
 * (any case); {@code param} a parameter's value as text, either {@code value} (any parameter) or
 * {@code name=value}; {@code fromMs}/{@code toMs} bound the creation time (inclusive).
 *
 * @param sort    one of {@link #SORTABLE}'s keys
 * @param offset  runs to skip (after filtering and sorting)
 * @param limit   most runs to return
 */
public record RunQuery(String state, String workflow, String text, String param, Long fromMs, Long toMs,
                       String sort, boolean ascending, int offset, int limit) {
    /** The sort keys and the column each orders by. */
    public static final Map<String, String> SORTABLE = Map.of(
            "created", "created_ms", "workflow", "workflow", "state", "state", "id", "id");

    public RunQuery {
        Objects.requireNonNull(sort, "sort");
        if (!SORTABLE.containsKey(sort)) {
            throw new IllegalArgumentException("cannot sort runs by '" + sort + "'; by one of " + String.join(", ",
                    new java.util.TreeSet<>(SORTABLE.keySet())));
        }
        if (offset < 0 || limit < 1) {
            throw new IllegalArgumentException("offset must be at least 0 and limit at least 1");
        }
    }

    /** The newest {@code limit} runs, optionally in one state (the list before paging existed). */
    public static RunQuery newest(String state, int limit) {
        return new RunQuery(state, null, null, null, null, null, "created", false, 0, limit);
    }

    /** Whether a parameter map matches {@link #param} (always, when it is {@code null}). */
    public boolean paramsMatch(com.fasterxml.jackson.databind.JsonNode params) {
        if (param == null) {
            return true;
        }
        int eq = param.indexOf('=');
        String name = eq > 0 ? param.substring(0, eq) : null;
        String value = eq > 0 ? param.substring(eq + 1) : param;
        if (params == null || !params.isObject()) {
            return false;
        }
        for (var it = params.fields(); it.hasNext(); ) {
            var e = it.next();
            String text = e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString();
            if ((name == null || name.equals(e.getKey())) && text.equals(value)) {
                return true;
            }
        }
        return false;
    }

    String lowerText() {
        return text == null ? null : text.toLowerCase(Locale.ROOT);
    }
}
