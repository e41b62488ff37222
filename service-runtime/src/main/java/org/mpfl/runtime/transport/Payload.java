package org.mpfl.runtime.transport;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A message value and its wire form. Encoding (documented in docs/wire-format.md): primitive arrays
 * are their elements as little-endian raw bytes, no header (the element count follows from the
 * length); scalars are 4 or 8 little-endian bytes, booleans one byte; strings UTF-8; {@code object}
 * values JSON with the kind or class of every value ({@link ObjectCodec}), read only by
 * {@link #value(ObjectTypes)} on the receiving rank, after the domain token was checked, and only
 * into the JDK value kinds and the classes that rank allows. Never Java serialisation.
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
    /** For OBJECT read off the wire: {@code null} until decoded (see {@link #value(ObjectTypes)}). */
    private Object value;
    /** For OBJECT: whether {@link #value} holds the value (made here, or decoded; set after it). */
    private volatile boolean decoded;
    /** For OBJECT: the serialised form, once known (read off the wire, or encoded once). */
    private byte[] serialised;
    /** A primitive array the sender will never touch again: an in-JVM receiver may keep it without a copy. */
    private boolean handedOver;

    private Payload(Type type, Object value) {
        this.type = type;
        this.value = value;
        this.decoded = true;
    }

    private Payload(byte[] serialisedObject) {
        this.type = Type.OBJECT;
        this.serialised = serialisedObject;
    }

    /**
     * Wraps a value without copying it (callers copy where the sender may reuse its array). An
     * {@code object} value is encoded when first needed, without checking its classes against an
     * allow-list: senders of user data use {@link #ofObject}.
     */
    public static Payload of(Object value) {
        return new Payload(typeOf(value), value);
    }

    /**
     * The payload of a value a rank sends: an {@code object} value is encoded now (a snapshot, as a
     * send has value semantics) and every class in it must be on the sender's allow-list, so a value
     * its receivers would refuse fails here, at the send; other values as by {@link #of}.
     *
     * @throws IllegalArgumentException if an object value holds something that cannot be sent
     */
    public static Payload ofObject(Object value, ObjectTypes sender) {
        Payload p = of(value);
        if (p.type == Type.OBJECT) {
            p.serialised = ObjectCodec.encode(value, sender);
        }
        return p;
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
     * The value. An {@code object} value read off the wire needs the receiver's allow-list:
     * {@link #value(ObjectTypes)}.
     *
     * @throws IllegalStateException for an {@code object} value read off the wire and not decoded yet
     */
    public Object value() {
        if (type == Type.OBJECT && !decoded) {
            throw new IllegalStateException("an object payload read off the wire is decoded with the receiver's"
                    + " allow-list: value(ObjectTypes)");
        }
        return value;
    }

    /**
     * The value, an {@code object} value read off the wire decoded on first use with the receiving
     * rank's allow-list — by the receiving rank after its receive matched, so never before the domain
     * token was checked.
     *
     * @throws ObjectTypeRefusedException if it names a class {@code allowed} does not contain (that
     *         class is not even loaded)
     * @throws IllegalArgumentException if it is not a valid object encoding
     */
    public synchronized Object value(ObjectTypes allowed) {
        if (type == Type.OBJECT && !decoded) {
            value = ObjectCodec.decode(serialised, allowed);
            decoded = true;
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
                        serialised = ObjectCodec.encode(value, null);
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
            case OBJECT -> null; // decoded by the receiver with its allow-list, see value(ObjectTypes)
        };
        if (type == Type.OBJECT) {
            return new Payload(bytes);
        }
        return new Payload(type, v);
    }
}
