package org.mpfl.engine.run;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.mpfl.engine.run.checkpoint.CheckpointStore;
import org.mpfl.protocol.CheckpointUpload;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.digest.Sha256;

/**
 * The engine's end of {@link CheckpointUpload}: a rank's part of a checkpoint is admitted from the
 * request's headers alone (run known and not ended, the run's current domain, the rank in range, the
 * proof valid for domain, rank, checkpoint number and announced SHA-256, the announced length within
 * the bound) before one byte of the body is read; once read, the body must match the announced
 * SHA-256 and be UTF-8 text, and the run must still be on that domain; then it is stored durably. Every refusal
 * of a part the engine will never take carries its {@link EngineRefusal} mark (the host gives the part up on it, and
 * sends it again on the same status unmarked, a proxy's); only a failure to write it (500) is unmarked. A part sent
 * again (its host did not hear the answer) is stored once: the same part of the same rank and checkpoint number
 * changes nothing and is answered as the first time ({@link CheckpointStore#store}).
 */
public final class CheckpointIntake {
    /** What an {@code X-MPFL-SHA256} header must look like. */
    static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    /** Highest checkpoint number taken seriously (a run checkpointing every millisecond for 30 years stays below). */
    static final long MAX_SEQ = 1L << 40;

    private final Function<String, Run> runs;
    private final CheckpointStore store;
    private final Callback stored;

    /** What the run service does with a stored part. */
    interface Callback {
        /** Announces the part (events, listeners); called after the run's lock is released. */
        void stored(Run run, CheckpointStore.Checkpoint checkpoint);
    }

    CheckpointIntake(Function<String, Run> runs, CheckpointStore store, Callback stored) {
        this.runs = runs;
        this.store = store;
        this.stored = stored;
    }

    /** The largest part accepted from one rank, in bytes. */
    public long maxPartBytes() {
        return store.maxPartBytes();
    }

    /**
     * A part admitted from its headers: where it goes and what its body must hash to.
     *
     * @param attempt the run attempt whose domain the proof belongs to
     * @param ranks   the ranks of that domain
     */
    public record Admission(String runId, String domainId, int attempt, int ranks, int rank, long seq, String sha256) {
    }

    /**
     * Admits a part from its request head (headers named in {@link CheckpointUpload}).
     *
     * @param contentLength the announced body length, or -1 when not announced (chunked)
     * @throws IntakeRefused each marked ({@link EngineRefusal}): 404 unknown run, 410 run ended, 403 wrong domain or
     *                       proof; 400 malformed headers or a rank or number out of range, 401 missing headers, 413
     *                       announced length above the bound ({@link EngineRefusal#BATCH_REJECTED})
     */
    public Admission admit(String runId, String domainId, String rankText, String seqText, String sha256, String proofText,
                           long contentLength) throws IntakeRefused {
        Run run = runId == null ? null : runs.apply(runId);
        if (run == null) {
            throw new IntakeRefused(EngineRefusal.DOMAIN_UNKNOWN, "no run '" + runId + "'");
        }
        if (domainId == null || rankText == null || seqText == null || sha256 == null || proofText == null) {
            throw IntakeRefused.rejected(401, "a checkpoint part needs the headers " + CheckpointUpload.DOMAIN_HEADER + ", "
                    + CheckpointUpload.RANK_HEADER + ", " + CheckpointUpload.CHECKPOINT_HEADER + ", "
                    + CheckpointUpload.SHA256_HEADER + " and " + CheckpointUpload.PROOF_HEADER);
        }
        int rank;
        long seq;
        byte[] proof;
        try {
            rank = Integer.parseInt(rankText.strip());
            seq = Long.parseLong(seqText.strip());
            proof = Base64.getUrlDecoder().decode(proofText.strip());
        } catch (IllegalArgumentException e) {
            throw IntakeRefused.rejected(400, "malformed checkpoint headers: " + e.getMessage());
        }
        if (!SHA256_HEX.matcher(sha256).matches()) {
            throw IntakeRefused.rejected(400, CheckpointUpload.SHA256_HEADER + " must be 64 lower-case hex digits");
        }
        if (seq < 1 || seq > MAX_SEQ) {
            throw IntakeRefused.rejected(400, "checkpoint number " + seq + " is out of range (1.." + MAX_SEQ + ")");
        }
        Run.Domain domain;
        int attempt;
        synchronized (run) {
            if (run.state().isFinal()) {
                throw new IntakeRefused(EngineRefusal.DOMAIN_ENDED, "run " + runId + " is " + run.state() + ": it takes no checkpoints");
            }
            domain = run.domain();
            attempt = run.attempts();
        }
        if (!sameDomain(domain.id(), domainId)) {
            throw new IntakeRefused(EngineRefusal.DOMAIN_FOREIGN, "not the current domain of run " + runId);
        }
        int ranks = domain.placements().size();
        if (rank < 0 || rank >= ranks) {
            throw IntakeRefused.rejected(400, "rank " + rank + " is not a rank of the domain (0.." + (ranks - 1) + ")");
        }
        if (!new DomainToken(domain.token()).verifyCheckpoint(domainId, rank, seq, sha256, proof)) {
            throw new IntakeRefused(EngineRefusal.FORBIDDEN, "the proof does not match this domain, rank, checkpoint and SHA-256");
        }
        if (contentLength > store.maxPartBytes()) {
            throw IntakeRefused.rejected(413, "a checkpoint part may have at most " + store.maxPartBytes() + " bytes, this one announces "
                    + contentLength);
        }
        return new Admission(runId, domainId, attempt, ranks, rank, seq, sha256);
    }

    /** 400 unless {@code body} hashes to {@code sha256}, the digest its {@code X-MPFL-SHA256} header announced and its proof covers. */
    static void requireDigest(byte[] body, String sha256) throws IntakeRefused {
        if (!MessageDigest.isEqual(Sha256.hex(body).getBytes(StandardCharsets.US_ASCII), sha256.getBytes(StandardCharsets.US_ASCII))) {
            throw IntakeRefused.rejected(400, "the body does not match " + CheckpointUpload.SHA256_HEADER);
        }
    }

    /** Whether a domain ID a post names is {@code expected}, compared in constant time (the ID is a secret of the run). */
    static boolean sameDomain(String expected, String named) {
        return named != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), named.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Stores an admitted part once its body is read.
     *
     * @return the checkpoint with this part: its parts so far, bytes, times, whether complete
     * @throws IntakeRefused 400 ({@link EngineRefusal#BATCH_REJECTED}) when the body does not match the announced
     *                       SHA-256 or is not UTF-8, 403 ({@link EngineRefusal#DOMAIN_FOREIGN}) when the run has moved
     *                       on to another domain meanwhile or ended, 500 (unmarked) when it cannot be written
     */
    public CheckpointStore.Checkpoint accept(Admission a, byte[] body) throws IntakeRefused {
        requireDigest(body, a.sha256());
        try {
            CheckpointStore.utf8(body);
        } catch (CharacterCodingException e) {
            throw IntakeRefused.rejected(400, "a checkpoint part must be UTF-8 (JSON) text");
        }
        Run run = runs.apply(a.runId());
        if (run == null) {
            throw new IntakeRefused(EngineRefusal.DOMAIN_FOREIGN, "run " + a.runId() + " is no longer on that domain");
        }
        CheckpointStore.Stored c;
        // The check, the write and the run's record of it are one step under the run's lock, the lock
        // Run.finish takes: a part that passed the check while a cancel was ending the run would otherwise
        // complete a checkpoint after the run had ended, and an ended run's record would still change.
        synchronized (run) {
            if (!a.domainId().equals(run.domainId()) || run.state().isFinal()) {
                throw new IntakeRefused(EngineRefusal.DOMAIN_FOREIGN, "run " + a.runId() + " is no longer on that domain");
            }
            try {
                c = store.store(a.runId(), a.seq(), a.attempt(), a.ranks(), a.rank(), body, a.sha256(), System.currentTimeMillis());
            } catch (IOException e) {
                throw new IntakeRefused("cannot store the checkpoint part", e);
            }
            if (c.again()) {
                // the same part sent again: stored, recorded and announced the first time; counted once
                return c.checkpoint();
            }
            run.history().checkpoint(c.checkpoint());
            run.touch();
        }
        stored.stored(run, c.checkpoint());
        return c.checkpoint();
    }

    /** The answer body for a stored part. */
    public static Map<String, Object> answer(CheckpointStore.Checkpoint c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("checkpoint", c.seq());
        m.put("parts", c.parts());
        m.put("ranks", c.ranks());
        m.put("complete", c.complete());
        return m;
    }
}
