package org.mpfl.runtime.interp.kernel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.MpflType;

/**
 * One {@code call} request and its answer (docs/kernel-protocol.md): scalars, strings and
 * {@code object} values (JSON) travel in the frame; arrays and bytes are placed in the worker's
 * shared memory and only their offsets and counts travel. After the call the input arrays are read
 * back, so that a kernel's in-place update is seen by the rank as a Java activity's is; an output
 * that is an input's region comes back as that input's array, without a copy.
 */
final class KernelCall {
    /**
     * JSON as Python's {@code json} module writes and reads it: a NaN or infinite number inside an {@code object} is
     * the bare token {@code NaN}, {@code Infinity} or {@code -Infinity} both ways (a {@code float} in Python, a
     * {@code Double} here), as a Java activity's object may hold one (docs/language-reference.md, types).
     */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
            .build();

    /** An input array placed in shared memory. */
    private record Placed(Object array, long offset, String type) {
    }

    private KernelCall() {
    }

    /**
     * Calls {@code target} on {@code worker}. Calls on one worker take turns from placing their inputs
     * to reading them back (the branches of a {@code <parallel>} share the rank's worker, and every call
     * places its arrays from offset 0 of the worker's shared memory).
     *
     * @param outputs the declared outputs, name to MPFL type
     * @return the outputs by name, as MPFL run-time values
     */
    static Map<String, Object> call(KernelWorker worker, String target, Map<String, Object> inputs,
                                    Map<String, MpflType> outputs) throws KernelFailure, InterruptedIOException {
        // the worker's own lock, which exchange and close take too; a call waiting here while the rank is aborted
        // is released when the abort kills the worker and the call in progress ends
        synchronized (worker) {
            return callAlone(worker, target, inputs, outputs);
        }
    }

    private static Map<String, Object> callAlone(KernelWorker worker, String target, Map<String, Object> inputs,
                                                 Map<String, MpflType> outputs) throws KernelFailure, InterruptedIOException {
        SharedArena arena = worker.arena();
        List<Placed> placed = new ArrayList<>(inputs.size());
        // the first free offset after the inputs, for the header line: known from the arrays' sizes before any is written
        long free = 0;
        for (Object v : inputs.values()) {
            if (isPlaced(v)) {
                free = SharedArena.align(free) + SharedArena.byteLength(v);
            }
        }
        StringBuilder request = new StringBuilder(64 + 48 * (inputs.size() + outputs.size()));
        request.append("call ").append(target).append(' ').append(SharedArena.align(free));
        try {
            long next = 0;
            for (Map.Entry<String, Object> in : inputs.entrySet()) {
                Object v = in.getValue();
                String type = wireType(v);
                request.append("\nin ").append(in.getKey()).append(' ').append(type).append(' ');
                if (isPlaced(v)) {
                    long offset = SharedArena.align(next);
                    arena.write(offset, v);
                    next = offset + SharedArena.byteLength(v);
                    long count = v instanceof byte[] b ? b.length : java.lang.reflect.Array.getLength(v);
                    request.append(offset).append(' ').append(count);
                    if (!(v instanceof byte[])) {
                        placed.add(new Placed(v, offset, type));
                    }
                } else {
                    request.append(scalar(v, type));
                }
            }
            for (Map.Entry<String, MpflType> out : outputs.entrySet()) {
                request.append("\nout ").append(out.getKey()).append(' ').append(out.getValue().spelling());
            }
        } catch (IOException e) {
            throw KernelFailure.workflow("cannot place the inputs in shared memory: " + e.getMessage());
        }
        OutputSlots slots = worker.slots();
        try {
            String answer = worker.exchange(request.toString(), Long.MAX_VALUE, () -> slots.prepare(target, outputs.keySet()));
            return answer(worker, target, answer, placed, SharedArena.align(free));
        } finally {
            slots.release();
        }
    }

    private static Map<String, Object> answer(KernelWorker worker, String target, String answer, List<Placed> placed, long free)
            throws KernelFailure {
        SharedArena arena = worker.arena();
        try {
            for (Placed p : placed) {
                arena.readInto(p.offset(), p.array());
            }
        } catch (IOException e) {
            throw KernelFailure.workflow("cannot read the inputs back from shared memory: " + e.getMessage());
        }
        int newline = answer.indexOf('\n');
        String head = newline < 0 ? answer : answer.substring(0, newline);
        if (head.startsWith("error")) {
            throw failure(worker, target, head, answer);
        }
        if (!head.equals("result")) {
            throw KernelFailure.workflow(worker.label() + " answered '" + head + "' to a call (expected 'result' or 'error')");
        }
        Map<String, Object> values = new LinkedHashMap<>();
        // the lines NAME TYPE PAYLOAD, read by index rather than split into arrays of strings
        for (int start = newline + 1; newline >= 0 && start <= answer.length(); start = newline + 1) {
            newline = answer.indexOf('\n', start);
            int end = newline < 0 ? answer.length() : newline;
            if (end == start) {
                continue;
            }
            int first = answer.indexOf(' ', start);
            int second = first < 0 || first >= end ? -1 : answer.indexOf(' ', first + 1);
            if (second < 0 || second >= end) {
                throw KernelFailure.workflow(worker.label() + " sent a malformed result line '" + answer.substring(start, end) + "'");
            }
            String name = answer.substring(start, first);
            if (values.containsKey(name)) { // not the last line silently: the worker is confused about its outputs
                throw KernelFailure.workflow(worker.label() + " sent output '" + name + "' twice in one result");
            }
            values.put(name, value(worker, target, name, answer.substring(first + 1, second), answer.substring(second + 1, end), placed,
                    free));
        }
        return values;
    }

    private static KernelFailure failure(KernelWorker worker, String target, String head, String answer) {
        String kind = head.length() > 6 ? head.substring(6) : "";
        String text = answer.indexOf('\n') < 0 ? "" : answer.substring(answer.indexOf('\n') + 1);
        // a command's call names no target on the wire ("-"): the messages name the command as the document wrote it
        String kernel = "kernel " + ("-".equals(target) ? worker.command() : target);
        return switch (kind) {
            case "exception" -> KernelFailure.workflow(kernel + " raised an exception:\n" + text);
            case "output" -> KernelFailure.workflow(kernel + ": " + text);
            // the first line names the call (sys.exit(3)), the traceback follows; the worker is stopped with the failing rank
            case "exit" -> KernelFailure.workflow(kernel + " called " + text.replaceFirst("\n", " to end its worker:\n"));
            default -> KernelFailure.workflow(worker.label() + " failed (" + (kind.isEmpty() ? "error" : kind) + "): " + text);
        };
    }

    /** Whether a value travels in the shared memory (arrays and bytes) rather than in the request. */
    private static boolean isPlaced(Object v) {
        return v instanceof int[] || v instanceof long[] || v instanceof double[] || v instanceof byte[];
    }

    /** The wire type of a run-time value: its MPFL type, {@code object} for anything else. */
    static String wireType(Object v) {
        if (v instanceof Integer) {
            return "int";
        }
        if (v instanceof Long) {
            return "long";
        }
        if (v instanceof Double) {
            return "double";
        }
        if (v instanceof Boolean) {
            return "boolean";
        }
        if (v instanceof String) {
            return "string";
        }
        if (v instanceof int[]) {
            return "int[]";
        }
        if (v instanceof long[]) {
            return "long[]";
        }
        if (v instanceof double[]) {
            return "double[]";
        }
        if (v instanceof byte[]) {
            return "bytes";
        }
        return "object";
    }

    private static String scalar(Object v, String type) throws KernelFailure {
        try {
            return switch (type) {
                case "string", "object" -> JSON.writeValueAsString(v);
                case "double" -> doubleText((Double) v);
                default -> String.valueOf(v);
            };
        } catch (JsonProcessingException e) {
            throw KernelFailure.workflow("an input of type " + v.getClass().getName() + " has no JSON form: "
                    + e.getOriginalMessage());
        }
    }

    /** Exact decimal text (shortest round trip), with the spellings Python's float() and C's strtod read. */
    static String doubleText(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        return Double.toString(d);
    }

    /** The protocol's {@code true} or {@code false}; any other word is refused, not read as false as Boolean.parseBoolean would. */
    static boolean parseBoolean(String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("a boolean is true or false");
        };
    }

    static double parseDouble(String text) {
        return switch (text.toLowerCase(java.util.Locale.ROOT)) {
            case "nan", "-nan" -> Double.NaN;
            case "inf", "infinity" -> Double.POSITIVE_INFINITY;
            case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    private static Object value(KernelWorker worker, String target, String name, String type, String payload,
                                List<Placed> placed, long free) throws KernelFailure {
        String label = worker.label();
        try {
            switch (type) {
                case "int":
                    return Integer.parseInt(payload.trim());
                case "long":
                    return Long.parseLong(payload.trim());
                case "double":
                    return parseDouble(payload.trim());
                case "boolean":
                    return parseBoolean(payload.trim());
                case "string":
                    return JSON.readValue(payload, String.class);
                case "object":
                    return JSON.readValue(payload, Object.class);
                default:
                    break;
            }
            String region = payload.trim();
            int space = region.indexOf(' ');
            long offset = Long.parseLong(region, 0, space, 10);
            int count = Integer.parseInt(region, space + 1, region.length(), 10);
            for (Placed p : placed) {
                if (p.offset() == offset && p.type().equals(type) && java.lang.reflect.Array.getLength(p.array()) == count) {
                    worker.slots().inPlace(target, name);
                    return p.array();
                }
            }
            if (!type.equals("bytes") && !type.equals("int[]") && !type.equals("long[]") && !type.equals("double[]")) {
                throw KernelFailure.workflow(label + " returned a value of unknown type '" + type + "'");
            }
            if (count < 0) {
                throw KernelFailure.workflow(label + " returned output '" + name + "' with a negative count (" + count + ")");
            }
            if (offset < free) {
                // docs/kernel-protocol.md: a new value goes at or after FREE; below it lie the inputs, whose regions
                // come back only as themselves (same offset and count: an in-place update)
                throw KernelFailure.workflow(label + " returned output '" + name + "' at offset " + offset + ", inside the"
                        + " inputs' regions (FREE was " + free + "): a new value goes at or after FREE, an input updated in"
                        + " place comes back with that input's own offset and count");
            }
            worker.arena().checkRegion(offset, SharedArena.byteLength(type, count));
            Object array = worker.slots().take(target, name, type, count);
            worker.arena().readInto(offset, array);
            return array;
        } catch (IOException | RuntimeException e) {
            throw KernelFailure.workflow(label + " returned an unreadable " + type + " value '" + payload + "': " + e.getMessage());
        }
    }
}
