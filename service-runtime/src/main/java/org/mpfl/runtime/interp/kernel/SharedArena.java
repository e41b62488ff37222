package org.mpfl.runtime.interp.kernel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.mpfl.ir.files.Orphans;

/**
 * The shared memory of one kernel worker: a memory-mapped file under {@code /dev/shm} (else the
 * temporary directory) that both sides map. The rank places its input arrays here; the worker sees
 * them in place (NumPy views), may update them, and appends its output arrays after them. Only names,
 * offsets and counts travel through the control channel. Values are in native byte order.
 */
final class SharedArena implements AutoCloseable {
    /** Every placed value starts at a multiple of this (cache lines; NumPy likes aligned data). */
    static final int ALIGN = 64;
    private static final long INITIAL_BYTES = 1 << 20;

    private final Path file;
    private final FileChannel channel;
    private MappedByteBuffer map;
    /** Typed views of the whole mapping, made once per mapping: a value is copied by one absolute bulk get or put, with no buffer made per value. */
    private IntBuffer ints;
    private LongBuffer longs;
    private DoubleBuffer doubles;
    private long mapped;

    private SharedArena(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** The files' names: {@code mpfl-kernel-PID-…shm}, PID the JVM that made it, so that an orphan can be told. */
    private static final String PREFIX = "mpfl-kernel-";
    private static final java.util.regex.Pattern ORPHAN = java.util.regex.Pattern.compile("mpfl-kernel-(\\d+)-.*\\.shm");
    private static final java.util.concurrent.atomic.AtomicBoolean SWEPT = new java.util.concurrent.atomic.AtomicBoolean();

    static SharedArena create() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path directory = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        if (SWEPT.compareAndSet(false, true)) {
            sweepOrphans(directory);
        }
        // owner-only on POSIX
        Path file = Files.createTempFile(directory, Orphans.named(PREFIX), ".shm");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        SharedArena arena = new SharedArena(file, channel);
        arena.ensure(INITIAL_BYTES);
        return arena;
    }

    Path file() {
        return file;
    }

    /** Removes the files of JVMs that are gone ({@link Orphans}): {@code /dev/shm} is memory, held until the next boot. */
    static void sweepOrphans(Path directory) {
        Orphans.sweep(directory, PREFIX + "*.shm", ORPHAN);
    }

    /** Grows the file (and the mapping) to at least {@code bytes}; no system call while the mapping is large enough. */
    void ensure(long bytes) throws IOException {
        if (map != null && bytes <= mapped) {
            return;
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IOException("kernel values of " + bytes + " bytes exceed the 2 GiB of one shared-memory file");
        }
        long size = channel.size();
        if (size < bytes) {
            long target = Math.min(Integer.MAX_VALUE, Math.max(bytes, size * 2));
            channel.write(ByteBuffer.wrap(new byte[1]), target - 1);
            size = target;
        }
        if (map == null || mapped < size) {
            map = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            map.order(ByteOrder.nativeOrder());
            ints = map.asIntBuffer();
            longs = map.asLongBuffer();
            doubles = map.asDoubleBuffer();
            mapped = size;
        }
    }

    /** Maps what the worker appended (it may have grown the file). */
    void refresh() throws IOException {
        ensure(channel.size());
    }

    static long align(long offset) {
        return (offset + ALIGN - 1) / ALIGN * ALIGN;
    }

    /** Bytes of an array or bytes value. */
    static long byteLength(Object value) {
        return value instanceof int[] a ? 4L * a.length : value instanceof long[] a ? 8L * a.length
                : value instanceof double[] a ? 8L * a.length : ((byte[]) value).length;
    }

    /** Copies an int[], long[], double[] or byte[] to {@code offset}. */
    void write(long offset, Object value) throws IOException {
        ensure(offset + byteLength(value));
        int at = (int) offset; // a multiple of ALIGN, so of every element's size
        if (value instanceof int[] a) {
            ints.put(at / Integer.BYTES, a);
        } else if (value instanceof long[] a) {
            longs.put(at / Long.BYTES, a);
        } else if (value instanceof double[] a) {
            doubles.put(at / Double.BYTES, a);
        } else {
            map.put(at, (byte[]) value);
        }
    }

    /** Bytes of {@code count} elements of an array type ({@code int[]}, {@code long[]}, {@code double[]}) or of {@code bytes}. */
    static long byteLength(String type, int count) {
        return (long) count * switch (type) {
            case "int[]" -> Integer.BYTES;
            case "long[]", "double[]" -> Long.BYTES;
            default -> 1;
        };
    }

    /**
     * Checks that the region of {@code bytes} at {@code offset} lies in the shared memory (mapping what the worker
     * appended first): before the rank allocates an array for a worker's output, so that a count no file could hold
     * is refused as such, not allocated.
     */
    void checkRegion(long offset, long bytes) throws IOException {
        if (offset < 0 || offset + bytes > mapped) {
            refresh();
            if (offset < 0 || offset + bytes > mapped) {
                throw new IOException("region " + offset + "+" + bytes + " lies outside the shared memory (" + mapped + " bytes)");
            }
        }
    }

    /** Copies the region at {@code offset} into {@code target} (an int[], long[], double[] or byte[]). */
    void readInto(long offset, Object target) throws IOException {
        checkRegion(offset, byteLength(target));
        int at = (int) offset;
        if (target instanceof byte[] a) {
            map.get(at, a);
        } else if (offset % elementBytes(target) != 0) { // a worker's output off the 64-byte grid: read through a view of its own
            ByteBuffer view = map.duplicate().position(at).slice().order(ByteOrder.nativeOrder());
            if (target instanceof int[] a) {
                view.asIntBuffer().get(a);
            } else if (target instanceof long[] a) {
                view.asLongBuffer().get(a);
            } else {
                view.asDoubleBuffer().get((double[]) target);
            }
        } else if (target instanceof int[] a) {
            ints.get(at / Integer.BYTES, a);
        } else if (target instanceof long[] a) {
            longs.get(at / Long.BYTES, a);
        } else {
            doubles.get(at / Double.BYTES, (double[]) target);
        }
    }

    private static int elementBytes(Object array) {
        return array instanceof int[] ? Integer.BYTES : Long.BYTES;
    }

    @Override
    public void close() {
        try {
            channel.close();
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a file left in /dev/shm is removed with the next boot; nothing else depends on it
        }
        map = null;
        ints = null;
        longs = null;
        doubles = null;
    }
}
