package org.mpfl.compiler.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
}
