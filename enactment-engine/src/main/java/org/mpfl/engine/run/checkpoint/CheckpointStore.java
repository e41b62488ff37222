package org.mpfl.engine.run.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.digest.Sha256;
import org.mpfl.ir.files.FileTrees;

/**
 * The ranks' checkpoint parts on disk: {@code ROOT/<run>/<seq>/rank-<r>.json} (the part exactly as the
 * rank uploaded it) and {@code ROOT/<run>/<seq>/manifest.json} (per part its SHA-256, size and arrival
 * time; the attempt that wrote it; the domain's size). Every file is written to a temporary name,
 * forced to disk and moved into place, so a crash leaves either the old or the new file, never half a
 * part. A checkpoint is <em>complete</em> when every rank of its attempt has a part; only complete
 * checkpoints are ever handed out, and only after every part read back matches its checksum again
 * ({@link #latestUsable}).
 *
 * <p>The engine keeps the {@value #KEPT_COMPLETE} newest complete checkpoints of a run (the newest may
 * turn out corrupt; the one before is the fall-back) and the parts of the one being taken.
 */
public final class CheckpointStore {
    /** Default bound on one rank's part (the {@code --checkpoint-max-bytes} of {@code mpflc up}). */
    public static final long DEFAULT_MAX_PART_BYTES = 64L * 1024 * 1024;
    /** Complete checkpoints kept per run. */
    public static final int KEPT_COMPLETE = 3;
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final String MANIFEST = "manifest.json";

    private final Path root;
    private final long maxPartBytes;
    /** One lock per run: its manifests, listings and deletions (parts of different runs never wait for each other). */
    private final java.util.concurrent.ConcurrentHashMap<String, Object> locks = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param root         the directory holding every run's checkpoints (created when needed)
     * @param maxPartBytes the largest part accepted from one rank
     */
    public CheckpointStore(Path root, long maxPartBytes) {
        if (maxPartBytes < 1) {
            throw new IllegalArgumentException("the checkpoint part limit must be at least 1 byte");
        }
        this.root = root;
        this.maxPartBytes = maxPartBytes;
    }

    public Path root() {
        return root;
    }

    public long maxPartBytes() {
        return maxPartBytes;
    }

    /**
     * What is known of one checkpoint.
     *
     * @param seq      its sequence number in the run
     * @param attempt  the run attempt that took it
     * @param ranks    how many ranks the domain had (parts needed)
     * @param parts    parts stored
     * @param bytes    their total size
     * @param firstMs  when the first part arrived
     * @param lastMs   when the last part arrived
     */
    public record Checkpoint(long seq, int attempt, int ranks, int parts, long bytes, long firstMs, long lastMs) {
        public boolean complete() {
            return parts == ranks;
        }
    }

    /**
     * What storing a part did.
     *
     * @param checkpoint the checkpoint with the part
     * @param again      whether the checkpoint already held this very part (same rank, attempt and SHA-256: its rank
     *                   sent it again, not having heard the first answer); nothing changed then
     */
    public record Stored(Checkpoint checkpoint, boolean again) {
    }

    /**
     * A complete checkpoint whose parts all matched their checksums when read back.
     *
     * @param seq   its sequence number
     * @param parts each rank's part, in rank order, as uploaded
     */
    public record Usable(long seq, List<String> parts) {
    }

    /**
     * Where a run can resume.
     *
     * @param checkpoint the newest usable checkpoint, if any
     * @param rejected   newer complete checkpoints found unusable, each with why (newest first)
     */
    public record Selection(Optional<Usable> checkpoint, List<String> rejected) {
    }

    /**
     * Stores one rank's verified part (its SHA-256 already checked by the caller) and returns the
     * checkpoint's state with it. A part of a checkpoint number that an earlier attempt also used
     * replaces that attempt's parts: they were taken after the checkpoint the new attempt resumed from. The same part
     * stored again (a rank sends it again when it did not hear the answer, also while the first is still being
     * written) changes nothing: {@link Stored#again}.
     *
     * @throws IOException if the part cannot be written
     */
    public Stored store(String runId, long seq, int attempt, int ranks, int rank, byte[] part,
                        String sha256Hex, long nowMs) throws IOException {
        Path dir = dir(runId, seq);
        Files.createDirectories(dir);
        // the part is written and forced outside the run's lock (the ranks' parts go to disk side by side);
        // only the manifest update is serialised. A file of its own: the same part sent again may be written
        // meanwhile, and must not truncate this one under the rename
        Path tmp = Files.createTempFile(dir, partName(rank) + "." + attempt + ".", ".tmp");
        try {
            writeForced(tmp, part);
            synchronized (lock(runId)) {
                return record(runId, dir, tmp, seq, attempt, ranks, rank, part.length, sha256Hex, nowMs);
            }
        } finally {
            Files.deleteIfExists(tmp); // moved into place, or not needed
        }
    }

    private Stored record(String runId, Path dir, Path tmp, long seq, int attempt, int ranks, int rank, long bytes,
                          String sha256Hex, long nowMs) throws IOException {
        ObjectNode manifest = readManifest(dir).orElse(null);
        if (manifest != null && manifest.path("attempt").asInt() == attempt && manifest.path("ranks").asInt() == ranks
                && sha256Hex.equals(manifest.path("parts").path(String.valueOf(rank)).path("sha256").asText(null))
                && Files.isRegularFile(dir.resolve(partName(rank)))) {
            return new Stored(summary(manifest), true);
        }
        if (manifest != null && (manifest.path("attempt").asInt() != attempt || manifest.path("ranks").asInt() != ranks)) {
            // another attempt's checkpoint of this number: it was after the one this attempt resumed from
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(f -> !f.getFileName().toString().endsWith(".tmp")).toList()) {
                    Files.deleteIfExists(f);
                }
            }
            manifest = null;
        }
        if (manifest == null) {
            manifest = Json.MAPPER.createObjectNode();
            manifest.put("seq", seq);
            manifest.put("attempt", attempt);
            manifest.put("ranks", ranks);
            manifest.putObject("parts");
        }
        move(tmp, dir.resolve(partName(rank)));
        ObjectNode p = ((ObjectNode) manifest.get("parts")).putObject(String.valueOf(rank));
        p.put("sha256", sha256Hex);
        p.put("bytes", bytes);
        p.put("receivedMs", nowMs);
        Checkpoint c = summary(manifest);
        // forced when it makes the checkpoint complete: a manifest lost before that only loses an
        // incomplete checkpoint, which is never used anyway
        writeAtomically(dir.resolve(MANIFEST), Json.write(manifest).getBytes(StandardCharsets.UTF_8), c.complete());
        if (c.complete()) {
            forceDirectory(dir); // the parts' and the manifest's renames
        }
        if (c.complete()) {
            dropOldComplete(runId);
        }
        return new Stored(c, false);
    }

    /** Every checkpoint of a run (complete or not), oldest first. */
    public List<Checkpoint> list(String runId) {
        synchronized (lock(runId)) {
            List<Checkpoint> out = new ArrayList<>();
            for (long seq : seqs(runId)) {
                readManifest(dir(runId, seq)).ifPresent(m -> out.add(summary(m)));
            }
            return out;
        }
    }

    private Object lock(String runId) {
        runDir(runId); // validates the id
        return locks.computeIfAbsent(runId, k -> new Object());
    }

    /**
     * The newest complete checkpoint of the run whose every part reads back with the checksum it was
     * stored with; newer complete ones that fail that check (a part missing, unreadable or changed)
     * are named in {@link Selection#rejected} and never used.
     *
     * @param ranks the number of ranks the resumed run has (a checkpoint of another size is unusable)
     */
    public Selection latestUsable(String runId, int ranks) {
        synchronized (lock(runId)) {
            return select(runId, ranks);
        }
    }

    private Selection select(String runId, int ranks) {
        List<String> rejected = new ArrayList<>();
        List<Long> seqs = seqs(runId);
        for (int i = seqs.size() - 1; i >= 0; i--) {
            long seq = seqs.get(i);
            Optional<ObjectNode> m = readManifest(dir(runId, seq));
            if (m.isEmpty() || !summary(m.get()).complete()) {
                continue; // never complete: never a candidate, not worth reporting
            }
            String why = null;
            List<String> parts = new ArrayList<>();
            if (m.get().path("ranks").asInt() != ranks) {
                why = "it has " + m.get().path("ranks").asInt() + " ranks, the run " + ranks;
            }
            for (int r = 0; why == null && r < ranks; r++) {
                JsonNode meta = m.get().path("parts").path(String.valueOf(r));
                Path file = dir(runId, seq).resolve(partName(r));
                if (!Files.isRegularFile(file)) {
                    why = "rank " + r + "'s part is missing";
                    break;
                }
                try {
                    byte[] bytes = Files.readAllBytes(file);
                    if (!Sha256.hex(bytes).equals(meta.path("sha256").asText())) {
                        why = "rank " + r + "'s part does not match its SHA-256 (corrupt)";
                    } else {
                        parts.add(utf8(bytes));
                    }
                } catch (IOException e) {
                    why = "rank " + r + "'s part cannot be read: " + e.getMessage();
                }
            }
            if (why == null) {
                return new Selection(Optional.of(new Usable(seq, List.copyOf(parts))), List.copyOf(rejected));
            }
            rejected.add("checkpoint " + seq + " unusable: " + why);
        }
        return new Selection(Optional.empty(), List.copyOf(rejected));
    }

    /** Deletes the run's checkpoints numbered after {@code seq} (0: all): a new attempt takes them again. */
    public void discardAfter(String runId, long seq) throws IOException {
        synchronized (lock(runId)) {
            for (long s : seqs(runId)) {
                if (s > seq) {
                    FileTrees.delete(dir(runId, s));
                }
            }
        }
    }

    /** Deletes every checkpoint of a run. */
    public void delete(String runId) throws IOException {
        synchronized (lock(runId)) {
            FileTrees.delete(runDir(runId));
        }
        locks.remove(runId);
    }

    /** The part as text; {@link CharacterCodingException} if it is not UTF-8 (the contract says JSON text). */
    public static String utf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    }

    private void dropOldComplete(String runId) throws IOException {
        List<Long> complete = new ArrayList<>();
        for (long s : seqs(runId)) {
            if (readManifest(dir(runId, s)).map(m -> summary(m).complete()).orElse(false)) {
                complete.add(s);
            }
        }
        for (int i = 0; i < complete.size() - KEPT_COMPLETE; i++) {
            FileTrees.delete(dir(runId, complete.get(i)));
        }
        // an incomplete checkpoint older than the newest complete one can never complete any more
        long newest = complete.isEmpty() ? 0 : complete.get(complete.size() - 1);
        for (long s : seqs(runId)) {
            if (s < newest && !complete.contains(s)) {
                FileTrees.delete(dir(runId, s));
            }
        }
    }

    private static Checkpoint summary(JsonNode m) {
        long bytes = 0;
        long first = Long.MAX_VALUE;
        long last = 0;
        int n = 0;
        for (JsonNode p : m.path("parts")) {
            n++;
            bytes += p.path("bytes").asLong();
            first = Math.min(first, p.path("receivedMs").asLong());
            last = Math.max(last, p.path("receivedMs").asLong());
        }
        return new Checkpoint(m.path("seq").asLong(), m.path("attempt").asInt(), m.path("ranks").asInt(), n, bytes,
                n == 0 ? 0 : first, last);
    }

    private Path runDir(String runId) {
        if (!RUN_ID.matcher(runId).matches()) {
            throw new IllegalArgumentException("not a run id: " + runId);
        }
        return root.resolve(runId);
    }

    private Path dir(String runId, long seq) {
        return runDir(runId).resolve(Long.toString(seq));
    }

    private static String partName(int rank) {
        return "rank-" + rank + ".json";
    }

    private List<Long> seqs(String runId) {
        Path dir = runDir(runId);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Long> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(p -> {
                try {
                    out.add(Long.parseLong(p.getFileName().toString()));
                } catch (NumberFormatException ignored) {
                    // not a checkpoint directory
                }
            });
        } catch (IOException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    private static Optional<ObjectNode> readManifest(Path dir) {
        Path f = dir.resolve(MANIFEST);
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        try {
            JsonNode n = Json.MAPPER.readTree(f.toFile());
            return n instanceof ObjectNode o ? Optional.of(o) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty(); // a damaged manifest makes the checkpoint unknown, hence unusable
        }
    }

    private static void writeAtomically(Path target, byte[] bytes, boolean force) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        write(tmp, bytes, force);
        move(tmp, target);
    }

    private static void writeForced(Path file, byte[] bytes) throws IOException {
        write(file, bytes, true);
    }

    private static void write(Path file, byte[] bytes, boolean force) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            if (force) {
                ch.force(true);
            }
        }
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // not every platform can force a directory; the files themselves are forced
        }
    }

    private static void move(Path tmp, Path target) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
