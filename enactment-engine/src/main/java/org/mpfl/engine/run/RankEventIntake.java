package org.mpfl.engine.run;

import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RankEventPost;

/**
 * The engine's check of {@link RankEventPost}: a post of rank events is admitted from its headers alone
 * (the run known, the domain named the run's current one, the proof valid for that domain's token over
 * the domain and the announced SHA-256) before one byte of its body is read; once read, the body must
 * match the announced SHA-256 and every event must name the admitted domain. Knowing a run's domain ID
 * is therefore not enough to post its states or outputs: that takes the domain's token, which only the
 * engine and the domain's hosts hold. What the events then do to the run is {@link RunService#rankEvents}'s
 * (which still refuses an event of a domain the run gave up meanwhile, and answers 410 for an ended run).
 * A post of a domain the run gave up less than {@link Run#LATE_LOG_MS} ago, proved with that domain's token, is
 * admitted as {@linkplain Admission#late late}: its log lines go to the run's log, nothing else of it is applied.
 */
public final class RankEventIntake {
    private final Function<String, Run> runs;

    RankEventIntake(Function<String, Run> runs) {
        this.runs = runs;
    }

    /**
     * A post admitted from its headers: the domain it proved and what its body must hash to.
     *
     * @param late of a domain the run gave up a moment ago ({@link Run#givenUpToken}): only its log lines are
     *             taken, and the post is then refused as of a foreign domain, so that the host stops those ranks
     */
    public record Admission(String runId, String domainId, String sha256, boolean late) {
    }

    /**
     * Admits a post from its request head (headers named in {@link RankEventPost}).
     *
     * @throws IntakeRefused 404 unknown run, 401 missing headers, 400 malformed headers (both marked
     *                       {@link EngineRefusal#BATCH_REJECTED}), 403 not the run's current domain or a proof that
     *                       does not verify
     */
    public Admission admit(String runId, String domainId, String sha256, String proofText) throws IntakeRefused {
        Run run = runId == null ? null : runs.apply(runId);
        if (run == null) {
            throw new IntakeRefused(EngineRefusal.DOMAIN_UNKNOWN, "no run '" + runId + "'");
        }
        if (domainId == null || sha256 == null || proofText == null) {
            throw IntakeRefused.rejected(401, "rank events need the headers " + RankEventPost.DOMAIN_HEADER + ", "
                    + RankEventPost.SHA256_HEADER + " and " + RankEventPost.PROOF_HEADER);
        }
        byte[] proof;
        try {
            proof = Base64.getUrlDecoder().decode(proofText.strip());
        } catch (IllegalArgumentException e) {
            throw IntakeRefused.rejected(400, RankEventPost.PROOF_HEADER + " is not base64url: " + e.getMessage());
        }
        if (!CheckpointIntake.SHA256_HEX.matcher(sha256).matches()) {
            throw IntakeRefused.rejected(400, RankEventPost.SHA256_HEADER + " must be 64 lower-case hex digits");
        }
        Run.Domain domain = run.domain();
        if (!CheckpointIntake.sameDomain(domain.id(), domainId)) {
            // a domain the run gave up a moment ago: its aborted ranks' last log lines, proved with its own token
            Optional<String> givenUp = run.givenUpToken(domainId, System.currentTimeMillis());
            if (givenUp.isPresent() && new DomainToken(givenUp.get()).verifyEvents(domainId, sha256, proof)) {
                return new Admission(runId, domainId, sha256, true);
            }
            // as an event of a domain the run gave up (or never had): the host stops that domain's ranks
            throw foreign(runId, domainId);
        }
        if (!new DomainToken(domain.token()).verifyEvents(domainId, sha256, proof)) {
            throw new IntakeRefused(EngineRefusal.FORBIDDEN, "the proof does not match this domain and SHA-256");
        }
        return new Admission(runId, domainId, sha256, false);
    }

    /** The refusal of events of a domain that is not the run's (any more): the host stops that domain's ranks. */
    public static IntakeRefused foreign(String runId, String domainId) {
        return new IntakeRefused(EngineRefusal.DOMAIN_FOREIGN, "events of domain '" + domainId + "' do not belong to run " + runId);
    }

    /**
     * Checks an admitted post's body before anything of it is parsed.
     *
     * @throws IntakeRefused 400 ({@link EngineRefusal#BATCH_REJECTED}) when it does not match the announced SHA-256
     */
    public void checkBody(Admission a, byte[] body) throws IntakeRefused {
        CheckpointIntake.requireDigest(body, a.sha256());
    }

    /**
     * Checks that every event of an admitted post is of the domain whose proof admitted it (the run may
     * have moved on to a new domain since: the old domain's token must not speak for the new one).
     *
     * @throws IntakeRefused 403 for an event of another domain; none of the post is applied then
     */
    public void checkDomains(Admission a, List<RankEvent> events) throws IntakeRefused {
        for (RankEvent e : events) {
            if (e != null && !CheckpointIntake.sameDomain(a.domainId(), e.domainId())) {
                throw new IntakeRefused(EngineRefusal.FORBIDDEN, "an event names domain '" + e.domainId() + "', not the domain "
                        + RankEventPost.DOMAIN_HEADER + " names");
            }
        }
    }
}
