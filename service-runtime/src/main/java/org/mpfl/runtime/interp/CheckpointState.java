package org.mpfl.runtime.interp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrVariable;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.protocol.digest.Sha256;

/**
 * One rank's part of a checkpoint, as JSON text (format {@value #FORMAT}; described in
 * docs/interpreter.md, "Checkpoints"):
 *
 * <pre>{@code
 * {"format": "mpfl-rank-checkpoint-1", "sha256": "<hex of the content as written>",
 *  "content": {"workflow", "process", "program": "<SHA-256 of the process IR>", "rank", "worldSize",
 *              "checkpoint": N, "site": <index of the checkpoint element>, "at": "file:line:col",
 *              "position": [{"index", "arm"?, "value"?, "from"?, "to"?, "step"?, "iteration"?}, ...],
 *              "arrivals": [<arrivals at each checkpoint site>],
 *              "communicators": [{"name", "kind": "split"|"cartesian", "comm", "colour", "key", "dims", "periodic"}],
 *              "variables": {"name": {"type": "<payload type>", "data": "<base64 of its wire form>"},
 *                            "obj": {"type": "OBJECT", "json": "<its object encoding, JSON as a string>"}}}}
 * }</pre>
 *
 * Variables travel in their message wire form ({@link Payload}: raw little-endian arrays, exact
 * doubles; {@code object} values in MPFL's JSON encoding, read back only into the workflow's
 * allow-listed classes, never Java serialisation). The content's digest catches a part damaged
 * after it was written; the program digest refuses a part of another program.
 */
final class CheckpointState {
    static final String FORMAT = "mpfl-rank-checkpoint-1";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a part restores. */
    record Restored(long checkpoint, IrActivity.Checkpoint site, List<ProgramPosition.Step> position, long[] arrivals,
                    List<NamedCommunicators.Made> communicators, Map<String, Object> variables) {
    }

    private CheckpointState() {
    }

    /** This rank's part of checkpoint {@code checkpoint}, taken at {@code site}. */
    static byte[] write(RankState rank, long checkpoint, IrActivity.Checkpoint site) {
        InterpretedProgram program = rank.program();
        ObjectNode c = JSON.createObjectNode();
        c.put("workflow", program.workflow());
        c.put("process", program.process().name());
        c.put("program", program.digest());
        c.put("rank", rank.layout().worldRank());
        c.put("worldSize", rank.layout().worldSize());
        c.put("checkpoint", checkpoint);
        c.put("site", program.checkpointSite(site));
        c.put("at", String.valueOf(site.at()));
        c.set("position", JSON.valueToTree(rank.position().snapshot()));
        ArrayNode arrivals = c.putArray("arrivals");
        for (int i = 0; program.checkpointSite(i) != null; i++) {
            arrivals.add(rank.arrivals(program.checkpointSite(i))[0]);
        }
        ArrayNode comms = c.putArray("communicators");
        for (NamedCommunicators.Made m : rank.communicators().made()) {
            comms.add(JSON.valueToTree(m));
        }
        ObjectNode vars = c.putObject("variables");
        Map<String, Object> values = rank.variablesSnapshot();
        for (IrVariable v : program.process().variables()) {
            Object value = values.get(v.name());
            Payload p;
            try {
                p = Payload.ofObject(value, program.objectTypes());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("variable '" + v.name() + "' cannot be saved: " + e.getMessage(), e);
            }
            ObjectNode entry = vars.putObject(v.name());
            entry.put("type", p.type().name());
            if (p.type() == Payload.Type.OBJECT) {
                // the object encoding is JSON text already: kept as a string, not base64 (a third smaller)
                entry.put("json", new String(p.encode(), StandardCharsets.UTF_8));
            } else {
                entry.put("data", Base64.getEncoder().encodeToString(p.encode()));
            }
        }
        try {
            String content = JSON.writeValueAsString(c);
            ObjectNode root = JSON.createObjectNode();
            root.put("format", FORMAT);
            root.put("sha256", Sha256.hex(content));
            root.set("content", c);
            return JSON.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the checkpoint: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Reads a part for this rank and program.
     *
     * @throws IllegalArgumentException saying what is wrong: not this format, damaged, another program,
     *                                  rank or checkpoint, a value that does not fit its variable
     */
    static Restored read(String text, RankState rank, long checkpoint) {
        InterpretedProgram program = rank.program();
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("it is not JSON (" + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject() || !FORMAT.equals(root.path("format").asText())) {
            throw new IllegalArgumentException("it is not a rank checkpoint of format " + FORMAT);
        }
        JsonNode c = root.get("content");
        String content;
        try {
            content = c == null ? "" : JSON.writeValueAsString(c);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("its content cannot be read", e);
        }
        if (c == null || !c.isObject() || !Sha256.hex(content).equals(root.path("sha256").asText())) {
            throw new IllegalArgumentException("its content does not match its SHA-256 (the part is damaged)");
        }
        expect(c, "program", program.digest(), "it was taken by another program (the workflow changed)");
        expect(c, "process", program.process().name(), "it belongs to another process");
        if (c.path("rank").asInt(-1) != rank.layout().worldRank() || c.path("worldSize").asInt(-1) != rank.layout().worldSize()) {
            throw new IllegalArgumentException("it is the part of rank " + c.path("rank") + " of " + c.path("worldSize")
                    + ", not of rank " + rank.layout().worldRank() + " of " + rank.layout().worldSize());
        }
        if (c.path("checkpoint").asLong(-1) != checkpoint) {
            throw new IllegalArgumentException("it is the part of checkpoint " + c.path("checkpoint") + ", not of " + checkpoint);
        }
        IrActivity.Checkpoint site = program.checkpointSite(c.path("site").asInt(-1));
        if (site == null) {
            throw new IllegalArgumentException("its checkpoint site " + c.path("site") + " does not exist");
        }
        try {
            List<ProgramPosition.Step> position = new ArrayList<>();
            for (JsonNode s : array(c, "position")) {
                position.add(JSON.treeToValue(s, ProgramPosition.Step.class));
            }
            JsonNode arrivalsNode = array(c, "arrivals");
            long[] arrivals = new long[arrivalsNode.size()];
            for (int i = 0; i < arrivals.length; i++) {
                arrivals[i] = arrivalsNode.get(i).asLong();
            }
            if (program.checkpointSite(arrivals.length - 1) == null || program.checkpointSite(arrivals.length) != null) {
                throw new IllegalArgumentException("it counts arrivals at " + arrivals.length + " checkpoint sites");
            }
            List<NamedCommunicators.Made> comms = new ArrayList<>();
            for (JsonNode m : array(c, "communicators")) {
                NamedCommunicators.Made made = JSON.treeToValue(m, NamedCommunicators.Made.class);
                boolean split = "split".equals(made.kind());
                if (made.name() == null || made.comm() == null || !split && (!"cartesian".equals(made.kind())
                        || made.dims() == null || made.periodic() == null || made.dims().length != made.periodic().length)) {
                    throw new IllegalArgumentException("communicator entry " + m + " is incomplete");
                }
                comms.add(made);
            }
            Map<String, Object> variables = new LinkedHashMap<>();
            JsonNode vars = c.get("variables");
            for (IrVariable v : program.process().variables()) {
                JsonNode entry = vars == null ? null : vars.get(v.name());
                if (entry == null) {
                    throw new IllegalArgumentException("variable '" + v.name() + "' is missing");
                }
                Payload.Type type = Payload.Type.valueOf(entry.path("type").asText());
                byte[] data = type == Payload.Type.OBJECT ? entry.path("json").asText().getBytes(StandardCharsets.UTF_8)
                        : Base64.getDecoder().decode(entry.path("data").asText());
                Object value = Payload.decode(type, data).value(program.objectTypes());
                Object fitted = ValueConversion.fit(value, v.type());
                if (fitted == ValueConversion.MISMATCH) {
                    throw new IllegalArgumentException("variable '" + v.name() + "' holds a " + ValueConversion.typeName(value)
                            + ", not a " + v.type());
                }
                variables.put(v.name(), fitted);
            }
            return new Restored(checkpoint, site, position, arrivals, comms, variables);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("it cannot be read: " + e.getOriginalMessage(), e);
        }
    }

    private static JsonNode array(JsonNode c, String field) {
        JsonNode a = c.get(field);
        if (a == null || !a.isArray()) {
            throw new IllegalArgumentException("it has no " + field);
        }
        return a;
    }

    private static void expect(JsonNode c, String field, String value, String otherwise) {
        if (!value.equals(c.path(field).asText())) {
            throw new IllegalArgumentException(otherwise);
        }
    }
}
