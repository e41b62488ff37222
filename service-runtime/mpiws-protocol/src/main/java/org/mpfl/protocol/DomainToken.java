package org.mpfl.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A domain's secret token and the proofs derived from it.
 *
 * <p><b>Token:</b> 256 random bits from {@link SecureRandom}, base64url without padding; only the
 * {@code run} request carries it. <b>Proof:</b> HMAC-SHA256 keyed with the token over the message
 * header (domain ID, context, from, to, tag, sequence number, kind), so a proof cannot be reused
 * for another message slot, and a captured proof reveals nothing about the token. The payload is
 * not covered: the header proof keeps outsiders from injecting or aborting (and from reading a rank's
 * outputs through {@code status}, {@link #proveStatus}); confidentiality and
 * integrity against someone on the wire need TLS underneath. Checks are constant-time
 * ({@link MessageDigest#isEqual}).
 */
public final class DomainToken {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] STORE_LABEL = "MPIWS-store-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ABORT_LABEL = "MPIWS-abort-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STATUS_LABEL = "MPIWS-status-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHANNEL_LABEL = "MPIWS-channel-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHECKPOINT_LABEL = "MPIWS-checkpoint-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENTS_LABEL = "MPIWS-events-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RELAY_SPLICE_LABEL = "MPFL-relay-splice-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RELAY_TAG_LABEL = "MPFL-relay-domain-1".getBytes(StandardCharsets.US_ASCII);

    private final SecretKeySpec key;
    /** Mac instances are not thread-safe and costly to create: one per thread per token. */
    private final ThreadLocal<Mac> macs;

    public DomainToken(String token) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("a domain token is required");
        }
        this.key = new SecretKeySpec(token.getBytes(StandardCharsets.US_ASCII), "HmacSHA256");
        this.macs = ThreadLocal.withInitial(this::newMac);
    }

    /** A fresh unguessable token (also usable as an unguessable domain ID). */
    public static String generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The proof for one store/bstore/sync-ack message.
     *
     * @param kindCode the message kind's wire code (the runtime's {@code Envelope.Kind} ordinal), so
     *                 a proof for one kind of message cannot be replayed as another
     */
    public byte[] prove(String domainId, int context, int from, int to, int tag, long seq, int kindCode) {
        byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer header = ByteBuffer.allocate(STORE_LABEL.length + 4 + id.length + 4 * 4 + 8 + 1);
        header.put(STORE_LABEL).putInt(id.length).put(id)
                .putInt(context).putInt(from).putInt(to).putInt(tag).putLong(seq).put((byte) kindCode);
        Mac mac = macs.get();
        return mac.doFinal(header.array());
    }

    /** Whether {@code proof} is this token's proof for the message header given (constant time). */
    public boolean verify(String domainId, int context, int from, int to, int tag, long seq, int kindCode, byte[] proof) {
        return proof != null && MessageDigest.isEqual(prove(domainId, context, from, to, tag, seq, kindCode), proof);
    }

    /** The proof that authorises aborting {@code domainId}. */
    public byte[] proveAbort(String domainId) {
        Mac mac = macs.get();
        mac.update(ABORT_LABEL);
        return mac.doFinal(domainId.getBytes(StandardCharsets.UTF_8));
    }

    public boolean verifyAbort(String domainId, byte[] proof) {
        return proof != null && MessageDigest.isEqual(proveAbort(domainId), proof);
    }

    /**
     * The proof that entitles a {@code status} request to one rank's outputs and failure message: bound
     * to the domain and the rank, under a label of its own, so an abort proof is never one (nor the
     * reverse), and a proof for one rank reads no other. Without it {@code status} still answers state,
     * progress and counters (what the MPIWS specification defines), to anyone who knows the domain ID.
     */
    public byte[] proveStatus(String domainId, int rank) {
        byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(STATUS_LABEL.length + 4 + id.length + 4);
        b.put(STATUS_LABEL).putInt(id.length).put(id).putInt(rank);
        return macs.get().doFinal(b.array());
    }

    public boolean verifyStatus(String domainId, int rank, byte[] proof) {
        return proof != null && domainId != null && MessageDigest.isEqual(proveStatus(domainId, rank), proof);
    }

    /**
     * The proof that opens a binary-channel connection for {@code domainId}: bound to the server's
     * fresh {@code challenge}, so a captured handshake is worth nothing on any other connection.
     */
    public byte[] proveChannel(byte[] challenge, String domainId) {
        byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(CHANNEL_LABEL.length + 4 + challenge.length + id.length);
        b.put(CHANNEL_LABEL).putInt(challenge.length).put(challenge).put(id);
        return macs.get().doFinal(b.array());
    }

    public boolean verifyChannel(byte[] challenge, String domainId, byte[] proof) {
        return proof != null && MessageDigest.isEqual(proveChannel(challenge, domainId), proof);
    }

    /**
     * The proof that authorises one rank's part of one checkpoint ({@link CheckpointUpload}): bound
     * to the domain, the rank, the checkpoint's sequence number and the SHA-256 of the part, so it
     * cannot be replayed for another rank, another checkpoint or other content.
     */
    public byte[] proveCheckpoint(String domainId, int rank, long checkpoint, String sha256Hex) {
        byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
        byte[] digest = sha256Hex.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(CHECKPOINT_LABEL.length + 4 + id.length + 4 + 8 + 4 + digest.length);
        b.put(CHECKPOINT_LABEL).putInt(id.length).put(id).putInt(rank).putLong(checkpoint).putInt(digest.length).put(digest);
        return macs.get().doFinal(b.array());
    }

    public boolean verifyCheckpoint(String domainId, int rank, long checkpoint, String sha256Hex, byte[] proof) {
        return proof != null && sha256Hex != null
                && MessageDigest.isEqual(proveCheckpoint(domainId, rank, checkpoint, sha256Hex), proof);
    }

    /**
     * The proof that authorises one post of rank events ({@link RankEventPost}): bound to the domain and
     * the SHA-256 of the body, so it authorises those events only, and under a label of its own, so a
     * checkpoint proof is never one.
     */
    public byte[] proveEvents(String domainId, String sha256Hex) {
        byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
        byte[] digest = sha256Hex.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(EVENTS_LABEL.length + 4 + id.length + 4 + digest.length);
        b.put(EVENTS_LABEL).putInt(id.length).put(id).putInt(digest.length).put(digest);
        return macs.get().doFinal(b.array());
    }

    public boolean verifyEvents(String domainId, String sha256Hex, byte[] proof) {
        return proof != null && domainId != null && sha256Hex != null
                && MessageDigest.isEqual(proveEvents(domainId, sha256Hex), proof);
    }

    /**
     * The proof with which both ends of a relayed connection show a relay that they hold this token
     * ({@code org.mpfl.protocol.relay}): bound to the relay, to the nonce the relay chose for this one
     * connection and to who dials whom, so the relay (or anyone watching it) learns nothing it could
     * present on another connection, and nothing about the token.
     */
    public byte[] proveRelaySplice(String relayId, String nonce, String from, String target) {
        Mac mac = macs.get();
        mac.update(RELAY_SPLICE_LABEL);
        for (String part : new String[] {relayId, nonce, from, target}) {
            byte[] b = part.getBytes(StandardCharsets.UTF_8);
            mac.update(ByteBuffer.allocate(4).putInt(b.length).array());
            mac.update(b);
        }
        return mac.doFinal();
    }

    /**
     * How a relayed connection names its domain to the relay: a hash of the domain ID, which the
     * engine and the domain's hosts keep to themselves and so never crosses the relay in the clear.
     */
    public static String relayTag(String domainId) {
        byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
        byte[] b = ByteBuffer.allocate(RELAY_TAG_LABEL.length + id.length).put(RELAY_TAG_LABEL).put(id).array();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(org.mpfl.protocol.digest.Sha256.of(b)).substring(0, 22);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }
}
