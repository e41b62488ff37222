package org.mpfl.runtime.transport;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.PolymorphicTypeValidator;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The wire form of {@code object} values (payload type 10; docs/wire-format.md, "object values"):
 * UTF-8 JSON in which every value carries its kind, {@code [kind, body]} or {@code null}. Kinds are
 * a fixed set of JDK value kinds (boxed primitives, strings, primitive and {@code Object[]}/
 * {@code String[]} arrays, lists, sets and maps of object values) or the binary name of a value class,
 * whose body is the JSON object of its fields, bound by Jackson to that class.
 *
 * <p>Why this and not Java serialisation: a reader that instantiates whatever class a stream names
 * lets anyone who can put bytes into a message run the JDK's and the libraries' gadget chains. Here a
 * class name is checked against the receiving rank's {@link ObjectTypes} before it is even loaded;
 * Jackson binds only fields (no getters, no setters), with polymorphic class ids denied, so inside an
 * allowed class only the types its author declared are ever created.
 */
final class ObjectCodec {
    private ObjectCodec() {
    }

    /** The first bytes of a Java serialisation stream (STREAM_MAGIC, STREAM_VERSION). */
    private static final byte[] JAVA_SERIALISATION = {(byte) 0xAC, (byte) 0xED, 0x00, 0x05};

    private static final ObjectMapper MAPPER = mapper();

    private static ObjectMapper mapper() {
        JsonFactory factory = JsonFactory.builder()
                // a byte[] field is a base64 string: as long as the payload allows, which transports bound
                .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
                .build();
        SimpleModule noClassNames = new SimpleModule("mpfl-no-class-names");
        // these JDK types are read from a name, and Jackson initialises the class it names: never read them
        refuse(noClassNames, Class.class);
        refuse(noClassNames, JavaType.class);
        refuse(noClassNames, java.lang.reflect.Type.class);
        return JsonMapper.builder(factory)
                // fields are the value (as for Java serialisation); getters and setters are code, never run
                .visibility(PropertyAccessor.ALL, Visibility.NONE)
                .visibility(PropertyAccessor.FIELD, Visibility.ANY)
                .visibility(PropertyAccessor.CREATOR, Visibility.ANY)
                .polymorphicTypeValidator(DenyClassIds.INSTANCE)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .addModule(noClassNames)
                .build();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void refuse(SimpleModule module, Class<?> type) {
        module.addDeserializer((Class) type, new JsonDeserializer<Object>() {
            @Override
            public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
                throw new IllegalArgumentException("a field of type " + type.getName() + " cannot be read from a message");
            }
        });
    }

    /** Refuses every polymorphic class id ({@code @JsonTypeInfo(use = CLASS)}): no type from the data. */
    private static final class DenyClassIds extends PolymorphicTypeValidator.Base {
        private static final long serialVersionUID = 1L;
        static final DenyClassIds INSTANCE = new DenyClassIds();

        @Override
        public Validity validateBaseType(MapperConfig<?> config, JavaType baseType) {
            return Validity.DENIED;
        }

        @Override
        public Validity validateSubClassName(MapperConfig<?> config, JavaType baseType, String subClassName) {
            return Validity.DENIED;
        }

        @Override
        public Validity validateSubType(MapperConfig<?> config, JavaType baseType, JavaType subType) {
            return Validity.DENIED;
        }
    }

    // ------------------------------------------------------------------ writing

    /**
     * The wire form of {@code value}.
     *
     * @param sender the sender's allow-list, checked for every value class met; {@code null}: not checked
     * @throws IllegalArgumentException if the value holds something that cannot be sent
     */
    static byte[] encode(Object value, ObjectTypes sender) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
            write(g, value, sender);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot send object value of " + value.getClass().getName() + ": "
                    + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot send object value: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    private static void write(JsonGenerator g, Object v, ObjectTypes sender) throws IOException {
        if (v == null) {
            g.writeNull();
            return;
        }
        g.writeStartArray();
        if (v instanceof Boolean b) {
            g.writeString("boolean");
            g.writeBoolean(b);
        } else if (v instanceof Integer i) {
            g.writeString("int");
            g.writeNumber(i);
        } else if (v instanceof Long l) {
            g.writeString("long");
            g.writeNumber(l);
        } else if (v instanceof Double d) {
            g.writeString("double");
            g.writeNumber(d); // shortest exact decimal; NaN and infinities as strings
        } else if (v instanceof Float f) {
            g.writeString("float");
            g.writeNumber(f);
        } else if (v instanceof Short s) {
            g.writeString("short");
            g.writeNumber(s);
        } else if (v instanceof Byte b) {
            g.writeString("byte");
            g.writeNumber(b);
        } else if (v instanceof Character c) {
            g.writeString("char");
            g.writeString(String.valueOf(c));
        } else if (v instanceof String s) {
            g.writeString("string");
            g.writeString(s);
        } else if (v.getClass().isArray()) {
            writeArray(g, v, sender);
        } else if (v instanceof List<?> l) {
            g.writeString("list");
            writeElements(g, l, sender);
        } else if (v instanceof Set<?> s) {
            g.writeString("set");
            writeElements(g, s, sender);
        } else if (v instanceof Map<?, ?> m) {
            g.writeString("map");
            g.writeStartArray();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                g.writeStartArray();
                write(g, e.getKey(), sender);
                write(g, e.getValue(), sender);
                g.writeEndArray();
            }
            g.writeEndArray();
        } else {
            Class<?> c = v instanceof Enum<?> e ? e.getDeclaringClass() : v.getClass();
            if (sender != null) {
                sender.checkSendable(c);
            } else if (c.getName().startsWith("java") || c.isAnonymousClass() || c.isLocalClass() || c.isHidden()) {
                throw new IllegalArgumentException("cannot send a value of " + c.getName() + " as an object");
            }
            g.writeString(c.getName());
            MAPPER.writeValue(g, v);
        }
        g.writeEndArray();
    }

    private static void writeArray(JsonGenerator g, Object v, ObjectTypes sender) throws IOException {
        if (v instanceof int[] a) {
            g.writeString("int[]");
            g.writeArray(a, 0, a.length);
        } else if (v instanceof long[] a) {
            g.writeString("long[]");
            g.writeArray(a, 0, a.length);
        } else if (v instanceof double[] a) {
            g.writeString("double[]");
            g.writeArray(a, 0, a.length);
        } else if (v instanceof float[] a) {
            g.writeString("float[]");
            g.writeStartArray();
            for (float x : a) {
                g.writeNumber(x);
            }
            g.writeEndArray();
        } else if (v instanceof short[] a) {
            g.writeString("short[]");
            g.writeStartArray();
            for (short x : a) {
                g.writeNumber(x);
            }
            g.writeEndArray();
        } else if (v instanceof boolean[] a) {
            g.writeString("boolean[]");
            g.writeStartArray();
            for (boolean x : a) {
                g.writeBoolean(x);
            }
            g.writeEndArray();
        } else if (v instanceof byte[] a) {
            g.writeString("byte[]");
            g.writeBinary(a);
        } else if (v instanceof char[] a) {
            g.writeString("char[]");
            g.writeString(a, 0, a.length);
        } else if (v.getClass() == String[].class) {
            g.writeString("string[]");
            g.writeStartArray();
            for (String s : (String[]) v) {
                g.writeString(s);
            }
            g.writeEndArray();
        } else if (v.getClass() == Object[].class) {
            g.writeString("object[]");
            writeElements(g, java.util.Arrays.asList((Object[]) v), sender);
        } else {
            throw new IllegalArgumentException("cannot send an array of " + v.getClass().getComponentType().getName()
                    + " as an object: use a List, or an Object[]");
        }
    }

    private static void writeElements(JsonGenerator g, Collection<?> elements, ObjectTypes sender) throws IOException {
        g.writeStartArray();
        for (Object e : elements) {
            write(g, e, sender);
        }
        g.writeEndArray();
    }

    // ------------------------------------------------------------------ reading

    /**
     * Reads an {@code object} value with the receiving rank's allow-list.
     *
     * @throws ObjectTypeRefusedException if it names a class outside {@code allowed} (not loaded)
     * @throws IllegalArgumentException if it is not in this encoding
     */
    static Object decode(byte[] bytes, ObjectTypes allowed) {
        if (startsWith(bytes, JAVA_SERIALISATION)) {
            throw new IllegalArgumentException("object payload is a Java serialisation stream: refused unread"
                    + " (object values travel as MPFL's JSON encoding, docs/wire-format.md)");
        }
        try (JsonParser p = MAPPER.getFactory().createParser(bytes)) {
            p.nextToken();
            Object v = read(p, allowed);
            if (p.nextToken() != null) {
                throw malformed(p, "trailing data after the value");
            }
            return v;
        } catch (ObjectTypeRefusedException e) {
            throw e;
        } catch (JsonProcessingException e) {
            if (e.getCause() instanceof ObjectTypeRefusedException r) {
                throw r;
            }
            throw new IllegalArgumentException("cannot read object payload: " + e.getOriginalMessage(), e);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read object payload: " + e.getMessage(), e);
        }
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        if (bytes.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** Reads the value at the parser's current token; leaves the parser on the value's last token. */
    private static Object read(JsonParser p, ObjectTypes allowed) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.START_ARRAY || p.nextToken() != JsonToken.VALUE_STRING) {
            throw malformed(p, "expected null or [kind, value]");
        }
        String kind = p.getText();
        JsonToken body = p.nextToken();
        if (body == null || body == JsonToken.END_ARRAY) {
            throw malformed(p, "kind " + kind + " without a value");
        }
        Object v = switch (kind) {
            case "boolean" -> booleanOf(p);
            case "int" -> intOf(p);
            case "long" -> longOf(p);
            case "double" -> doubleOf(p);
            case "float" -> floatOf(p);
            case "short" -> (short) ranged(p, Short.MIN_VALUE, Short.MAX_VALUE);
            case "byte" -> (byte) ranged(p, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case "char" -> {
                String s = stringOf(p);
                if (s.length() != 1) {
                    throw malformed(p, "a char must be one UTF-16 unit");
                }
                yield s.charAt(0);
            }
            case "string" -> stringOf(p);
            case "char[]" -> stringOf(p).toCharArray();
            case "byte[]" -> {
                if (body != JsonToken.VALUE_STRING) {
                    throw malformed(p, "byte[] must be a base64 string");
                }
                yield p.getBinaryValue();
            }
            case "int[]", "long[]", "double[]", "float[]", "short[]", "boolean[]", "string[]", "object[]", "list", "set",
                 "map" -> readSequence(p, kind, allowed);
            default -> {
                // a class name: checked on the name before anything is loaded
                Class<?> c = allowed.resolve(kind);
                if (body != (c.isEnum() ? JsonToken.VALUE_STRING : JsonToken.START_OBJECT)) {
                    throw malformed(p, kind + " must be " + (c.isEnum() ? "a constant's name" : "a JSON object of its fields"));
                }
                yield MAPPER.readValue(p, c);
            }
        };
        if (p.nextToken() != JsonToken.END_ARRAY) {
            throw malformed(p, "expected the end of [kind, value]");
        }
        return v;
    }

    private static Object readSequence(JsonParser p, String kind, ObjectTypes allowed) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw malformed(p, kind + " must be a JSON array");
        }
        List<Object> items = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == null) {
                throw malformed(p, "unterminated " + kind);
            }
            items.add(switch (kind) {
                case "int[]" -> intOf(p);
                case "long[]" -> longOf(p);
                case "double[]" -> doubleOf(p);
                case "float[]" -> floatOf(p);
                case "short[]" -> (short) ranged(p, Short.MIN_VALUE, Short.MAX_VALUE);
                case "boolean[]" -> booleanOf(p);
                case "string[]" -> p.currentToken() == JsonToken.VALUE_NULL ? null : stringOf(p);
                case "map" -> {
                    if (p.currentToken() != JsonToken.START_ARRAY) {
                        throw malformed(p, "a map entry must be [key, value]");
                    }
                    p.nextToken();
                    Object key = read(p, allowed);
                    p.nextToken();
                    Object value = read(p, allowed);
                    if (p.nextToken() != JsonToken.END_ARRAY) {
                        throw malformed(p, "a map entry must be [key, value]");
                    }
                    yield Map.entry(new Holder(key), new Holder(value));
                }
                default -> read(p, allowed);
            });
        }
        int n = items.size();
        switch (kind) {
            case "int[]" -> {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (Integer) items.get(i);
                }
                return a;
            }
            case "long[]" -> {
                long[] a = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (Long) items.get(i);
                }
                return a;
            }
            case "double[]" -> {
                double[] a = new double[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (Double) items.get(i);
                }
                return a;
            }
            case "float[]" -> {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (Float) items.get(i);
                }
                return a;
            }
            case "short[]" -> {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (Short) items.get(i);
                }
                return a;
            }
            case "boolean[]" -> {
                boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (Boolean) items.get(i);
                }
                return a;
            }
            case "string[]" -> {
                return items.toArray(new String[0]);
            }
            case "object[]" -> {
                return items.toArray();
            }
            case "list" -> {
                return items;
            }
            case "set" -> {
                return new LinkedHashSet<>(items);
            }
            default -> {
                Map<Object, Object> m = new LinkedHashMap<>();
                for (Object o : items) {
                    @SuppressWarnings("unchecked")
                    Map.Entry<Holder, Holder> e = (Map.Entry<Holder, Holder>) o;
                    m.put(e.getKey().value, e.getValue().value);
                }
                return m;
            }
        }
    }

    /** Map.entry refuses nulls; keys and values may be null. */
    private record Holder(Object value) {
    }

    private static boolean booleanOf(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
            throw malformed(p, "expected a boolean");
        }
        return t == JsonToken.VALUE_TRUE;
    }

    private static int intOf(JsonParser p) throws IOException {
        return (int) ranged(p, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    private static long longOf(JsonParser p) throws IOException {
        return ranged(p, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private static long ranged(JsonParser p, long min, long max) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw malformed(p, "expected an integer");
        }
        long v = p.getLongValue();
        if (v < min || v > max) {
            throw malformed(p, v + " is out of range");
        }
        return v;
    }

    private static double doubleOf(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT) {
            return p.getDoubleValue();
        }
        if (t == JsonToken.VALUE_STRING) {
            switch (p.getText()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
        }
        throw malformed(p, "expected a number");
    }

    /** Floats are written as the shortest decimal of the float: parsed as a float, not through a double. */
    private static float floatOf(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT) {
            return Float.parseFloat(p.getText());
        }
        return (float) doubleOf(p);
    }

    private static String stringOf(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw malformed(p, "expected a string");
        }
        return p.getText();
    }

    private static IllegalArgumentException malformed(JsonParser p, String what) {
        return new IllegalArgumentException("cannot read object payload: " + what + " at byte "
                + p.currentLocation().getByteOffset());
    }
}
