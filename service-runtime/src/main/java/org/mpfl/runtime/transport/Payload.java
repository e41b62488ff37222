package org.mpfl.runtime.transport;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A message value and its wire form. Encoding (documented in docs/wire-format.md): primitive arrays
 * are their elements as little-endian raw bytes, no header (the element count follows from the
 * length); scalars are 4 or 8 little-endian bytes, booleans one byte; strings UTF-8; {@code object}
 * values Java serialisation (only ever deserialised by {@link #value()} on the receiving rank, after
 * the domain token was checked).
 */
public final class Payload {

    /** The wire type code of a value. The numeric code travels in the message header. */
    public enum Type {
        NULL(0), INT_ARRAY(1), LONG_ARRAY(2), DOUBLE_ARRAY(3), BYTES(4), STRING(5),
        INT(6), LONG(7), DOUBLE(8), BOOLEAN(9), OBJECT(10);

        public final int code;

        Type(int code) {
            this.code = code;
        }

        public static Type ofCode(int code) {
            for (Type t : values()) {
                if (t.code == code) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown payload type code " + code);
        }
    }

    private final Type type;
    /** For OBJECT read off the wire: {@code null} until first asked for (see {@link #value()}). */
    private Object value;
    /** For OBJECT: the serialised form, once known (read off the wire, or encoded once). */
    private byte[] serialised;
    /** A primitive array the sender will never touch again: an in-JVM receiver may keep it without a copy. */
    private boolean handedOver;

    private Payload(Type type, Object value) {
        this.type = type;
        this.value = value;
    }

    private Payload(byte[] serialisedObject) {
        this.type = Type.OBJECT;
        this.serialised = serialisedObject;
    }

    /** Wraps a value without copying it (callers copy where the sender may reuse its array). */
    public static Payload of(Object value) {
        return new Payload(typeOf(value), value);
    }

    /**
     * Wraps a value its sender hands over: a fresh primitive array that the sender keeps no reference
     * to (a collective's temporary buffer sent to exactly one rank), so the local transport can pass
     * it on without the copy it otherwise makes. Other values are wrapped as by {@link #of}: an
     * object graph may still be shared with the sender.
     */
    public static Payload handedOver(Object value) {
        Payload p = of(value);
        p.handedOver = switch (p.type) {
            case INT_ARRAY, LONG_ARRAY, DOUBLE_ARRAY, BYTES -> true;
            default -> false;
        };
        return p;
    }

    /** Whether the sender handed the value over ({@link #handedOver}); copies never are. */
    public boolean isHandedOver() {
        return handedOver;
    }

    public static Type typeOf(Object value) {
        if (value == null) {
            return Type.NULL;
        } else if (value instanceof int[]) {
            return Type.INT_ARRAY;
        } else if (value instanceof long[]) {
            return Type.LONG_ARRAY;
        } else if (value instanceof double[]) {
            return Type.DOUBLE_ARRAY;
        } else if (value instanceof byte[]) {
            return Type.BYTES;
        } else if (value instanceof String) {
            return Type.STRING;
        } else if (value instanceof Integer) {
            return Type.INT;
        } else if (value instanceof Long) {
            return Type.LONG;
        } else if (value instanceof Double) {
            return Type.DOUBLE;
        } else if (value instanceof Boolean) {
            return Type.BOOLEAN;
        }
        return Type.OBJECT;
    }

    public Type type() {
        return type;
    }

    /**
     * The value. An {@code object} value read off the wire is deserialised here, on first use — by
     * the receiving rank after its receive matched, so never before the domain token was checked,
     * and with the receiving thread's context class loader.
     */
    public Object value() {
        if (type == Type.OBJECT && value == null) {
            synchronized (this) {
                if (value == null) {
                    value = deserialise(serialised);
                }
            }
        }
        return value;
    }

    /** A deep copy of array values (what the local transport hands over); immutable values are shared. */
    public Payload copy() {
        return switch (type) {
            case INT_ARRAY -> new Payload(type, ((int[]) value).clone());
            case LONG_ARRAY -> new Payload(type, ((long[]) value).clone());
            case DOUBLE_ARRAY -> new Payload(type, ((double[]) value).clone());
            case BYTES -> new Payload(type, ((byte[]) value).clone());
            case OBJECT -> decode(type, encode());
            default -> this;
        };
    }

    /** Number of bytes {@link #encode()} produces. */
    public int encodedLength() {
        return switch (type) {
            case NULL -> 0;
            case INT_ARRAY -> 4 * ((int[]) value).length;
            case LONG_ARRAY -> 8 * ((long[]) value).length;
            case DOUBLE_ARRAY -> 8 * ((double[]) value).length;
            case BYTES -> ((byte[]) value).length;
            case INT -> 4;
            case LONG, DOUBLE -> 8;
            case BOOLEAN -> 1;
            default -> encode().length;
        };
    }

    /** The wire form. */
    public byte[] encode() {
        ByteBuffer buf;
        switch (type) {
            case NULL:
                return new byte[0];
            case BYTES:
                return (byte[]) value;
            case STRING:
                return ((String) value).getBytes(StandardCharsets.UTF_8);
            case OBJECT:
                synchronized (this) {
                    if (serialised == null) {
                        serialised = serialise(value);
                    }
                    return serialised;
                }
            default:
                buf = ByteBuffer.allocate(encodedLength()).order(ByteOrder.LITTLE_ENDIAN);
                encodeInto(buf);
                return buf.array();
        }
    }

    /** Writes the wire form of a fixed-size type into {@code buf} (little-endian order must be set). */
    public void encodeInto(ByteBuffer buf) {
        switch (type) {
            case NULL -> { }
            case INT_ARRAY -> buf.asIntBuffer().put((int[]) value);
            case LONG_ARRAY -> buf.asLongBuffer().put((long[]) value);
            case DOUBLE_ARRAY -> buf.asDoubleBuffer().put((double[]) value);
            case INT -> buf.putInt((Integer) value);
            case LONG -> buf.putLong((Long) value);
            case DOUBLE -> buf.putDouble((Double) value);
            case BOOLEAN -> buf.put((byte) (((Boolean) value) ? 1 : 0));
            default -> buf.put(encode());
        }
        if (type == Type.INT_ARRAY || type == Type.LONG_ARRAY || type == Type.DOUBLE_ARRAY) {
            buf.position(buf.position() + encodedLength());
        }
    }

    /** Reads a value from its wire form. */
    public static Payload decode(Type type, byte[] bytes) {
        return decode(type, bytes, 0, bytes.length);
    }

    /**
     * Reads a value from the wire form at {@code bytes[offset, offset + length)}. Arrays and scalars
     * are read in place; byte arrays and {@code object} values need their own array and are copied
     * out unless the range is the whole array.
     */
    public static Payload decode(Type type, byte[] bytes, int offset, int length) {
        if ((type == Type.BYTES || type == Type.OBJECT) && (offset != 0 || length != bytes.length)) {
            bytes = java.util.Arrays.copyOfRange(bytes, offset, offset + length);
            offset = 0;
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes, offset, length).slice().order(ByteOrder.LITTLE_ENDIAN);
        Object v = switch (type) {
            case NULL -> null;
            case INT_ARRAY -> {
                int[] a = new int[length / 4];
                buf.asIntBuffer().get(a);
                yield a;
            }
            case LONG_ARRAY -> {
                long[] a = new long[length / 8];
                buf.asLongBuffer().get(a);
                yield a;
            }
            case DOUBLE_ARRAY -> {
                double[] a = new double[length / 8];
                buf.asDoubleBuffer().get(a);
                yield a;
            }
            case BYTES -> bytes;
            case STRING -> new String(bytes, offset, length, StandardCharsets.UTF_8);
            case INT -> buf.getInt();
            case LONG -> buf.getLong();
            case DOUBLE -> buf.getDouble();
            case BOOLEAN -> bytes[offset] != 0;
            case OBJECT -> null; // deserialised lazily, see value()
        };
        if (type == Type.OBJECT) {
            return new Payload(bytes);
        }
        return new Payload(type, v);
    }

    private static byte[] serialise(Object value) {
        if (!(value instanceof Serializable)) {
            throw new IllegalArgumentException("object value of " + value.getClass().getName()
                    + " is not serialisable and cannot be sent");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(out)) {
            oos.writeObject(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot serialise object value: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    private static Object deserialise(byte[] bytes) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                // user activity classes live in the service's libraries: resolve through the context loader
                try {
                    return Class.forName(desc.getName(), false, Thread.currentThread().getContextClassLoader());
                } catch (ClassNotFoundException e) {
                    return super.resolveClass(desc);
                }
            }
        }) {
            return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalArgumentException("cannot read object value: " + e.getMessage(), e);
        }
    }
}
