package org.mpfl.ir.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/**
 * JSON form of plans and IR. Absent optional values are omitted (null); unknown fields are ignored
 * when reading, so that plans written by a newer compiler of the same format version still load.
 */
public final class PlanJson {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private PlanJson() {
    }

    /** The configured mapper (shared, thread-safe). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Compact JSON (for machines: archive entries, messages). */
    public static byte[] toBytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Indented JSON (for people: the plan.json next to the archives). */
    public static byte[] toPrettyBytes(Object value) {
        try {
            return MAPPER.writer(SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a plan; refuses a different format version. */
    public static DeploymentPlan readPlan(InputStream in) throws IOException {
        DeploymentPlan plan = MAPPER.readValue(in, DeploymentPlan.class);
        if (plan.formatVersion() != DeploymentPlan.FORMAT_VERSION) {
            throw new IOException("plan format " + plan.formatVersion() + " is not supported (expected "
                    + DeploymentPlan.FORMAT_VERSION + ")");
        }
        return plan;
    }

    public static DeploymentPlan readPlan(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return readPlan(in);
        }
    }

    /**
     * Reads a plan given as a JSON tree (e.g. inside a REST request). A tree with
     * {@code formatVersion} is a plan as {@code mpflc compile} writes it (same rules as
     * {@link #readPlan(InputStream)}). A tree without it is the short, hand-written form:
     * <pre>{"workflow": name, "processes": [{"name", "service", "ranks": int}], "params": {...}}</pre>
     * where {@code service} defaults to the process name, {@code ranks} may also be spelt
     * {@code size} or {@code count}, and {@code params} is either the compiler's list of declarations or
     * an object of bare default values or {@code {"default": v}} (the params then have no type). Such a
     * plan has no programs: it names services that are already deployed.
     */
    public static DeploymentPlan readPlan(JsonNode tree) throws IOException {
        if (tree == null || !tree.isObject()) {
            throw new IOException("a deployment plan must be a JSON object");
        }
        if (tree.has("formatVersion")) {
            DeploymentPlan plan = MAPPER.treeToValue(tree, DeploymentPlan.class);
            if (plan.formatVersion() != DeploymentPlan.FORMAT_VERSION) {
                throw new IOException("plan format " + plan.formatVersion() + " is not supported (expected "
                        + DeploymentPlan.FORMAT_VERSION + ")");
            }
            if (plan.processes().isEmpty()) {
                throw new IOException("plan '" + plan.workflow() + "' has no processes");
            }
            return plan;
        }
        return readShortPlan(tree);
    }

    private static DeploymentPlan readShortPlan(JsonNode tree) throws IOException {
        String name = text(tree, "workflow", text(tree, "name", "workflow"));
        JsonNode ps = tree.get("processes");
        if (ps == null || !ps.isArray() || ps.isEmpty()) {
            throw new IOException("plan '" + name + "' has no processes");
        }
        List<PlanProcess> processes = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (JsonNode p : ps) {
            String process = text(p, "name", null);
            if (process == null) {
                throw new IOException("plan '" + name + "': a process without a name");
            }
            if (!names.add(process)) {
                throw new IOException("plan '" + name + "' has two processes named '" + process + "'");
            }
            String service = text(p, "service", text(p, "serviceType", process));
            JsonNode n = p.has("ranks") ? p.get("ranks") : p.has("size") ? p.get("size") : p.get("count");
            // a count beyond an int (or a fraction) was said as "at least 1", which a client sending 99999999999 could not act on
            if (n == null || !n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < 1) {
                throw new IOException("plan '" + name + "': process '" + process + "' needs a whole number of ranks from 1 to "
                        + Integer.MAX_VALUE + " (field 'ranks')" + (n == null ? "" : ", not " + n));
            }
            processes.add(new PlanProcess(process, service, new IrExpr.Const(MpflType.INT, n.asInt(), null), n.asInt(),
                    null, null));
        }
        List<PlanParam> params = new ArrayList<>();
        JsonNode declared = tree.get("params");
        if (declared != null && declared.isArray()) {
            for (JsonNode d : declared) {
                params.add(MAPPER.treeToValue(d, PlanParam.class));
            }
        } else if (declared != null && declared.isObject()) {
            for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) declared::fields) {
                JsonNode v = e.getValue();
                // a declaration may be {"type": .., "default": ..} or the bare default value
                JsonNode value = v.isObject() && v.has("default") ? v.get("default") : v.isObject() ? null : v;
                Object dflt = value == null || value.isNull() ? null : MAPPER.treeToValue(value, Object.class);
                params.add(new PlanParam(e.getKey(), null, dflt, false));
            }
        }
        return new DeploymentPlan(DeploymentPlan.FORMAT_VERSION, name, null, null, null, null, null, params, List.of(),
                processes);
    }

    private static String text(JsonNode n, String field, String dflt) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? dflt : v.asText();
    }
}
