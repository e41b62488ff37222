package org.mpfl.engine.capacity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.run.RunService;
import org.mpfl.engine.store.CapacityJobStore;
import org.mpfl.engine.store.CapacityJobStore.StoredJob;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.RepeatedProblem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Capacity on demand: brings service hosts from a {@link CapacityProvider} for the runs waiting in the
 * run queue, and gives them back when they are idle. On every tick it
 * <ol>
 * <li>asks the scheduler about its jobs; a job that ended without being released (it failed, was
 * cancelled from outside, hit its wall time) is a lost host for the runs on it, named with its job and
 * node and its final state (one still {@linkplain JobStatus.Phase#ENDING ending}, Slurm's COMPLETING, is reported
 * once the scheduler says how it ended, {@link #ending});</li>
 * <li>notes which jobs' hosts joined (the registry lists their host id);</li>
 * <li>releases ({@code cancel}) jobs whose host held no rank for {@link CapacitySettings#idleRelease}
 * while no run waited;</li>
 * <li>submits jobs for the ranks the queue waits for beyond the free places of its hosts and the jobs
 * still on their way, never more than {@link CapacitySettings#maxNodes} jobs at once.</li>
 * </ol>
 * Each job starts one host with a credential of its own, issued for that job only and revoked when
 * the job ends. Jobs are recorded in the run store before they are submitted, so that a restarted
 * engine adopts them ({@link #start}) instead of submitting again. The run queue's reasons lead with
 * the jobs on their way ({@code waiting for a host from Slurm job 1234 PENDING (Resources)}) and end with what else
 * holds hosts back (the node limit, failed submissions).
 */
// Over 600 lines on purpose: one owner of every job's life (submitted, adopted, running, idle, released) under one
// lock; the lookup retry of adopted jobs (fix-slurm) and the wait for an ending job's final state (fix-slurm2) added
// the last lines (with fix-slurm3's short wait for the other hosts of a restarted engine, fix-slurmwalk's join timeout, and
// the stop's cancels at once under one deadline, releaseAll), and a split would share that lock's state.
public final class CapacityManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CapacityManager.class);

    /** One job of this engine. */
    private static final class Job {
        final String name;
        final String hostId;
        final long submittedMs;
        String jobId;
        JobStatus status;
        /** The host's entry as last seen in the registry, or {@code null} while it has not joined. */
        HostInfo host;
        long idleSinceMs;
        /** When a poll first saw the job RUNNING (0: not yet). */
        long runningSeenMs;
        boolean releasing;
        /** For a job of a previous engine recorded without its id: when looking it up first failed (0: not yet). */
        long lookUpFailingSinceMs;
        /** When a poll first saw it {@linkplain JobStatus.Phase#ENDING ending} without being released (0: not yet). */
        long endingSinceMs;
        /** The node it ran on as last said (a job that ended may be listed without its node). */
        String node = "";
        /**
         * Without its id because this engine's own submission got no answer ({@link CapacityException#isOutcomeUnknown}),
         * not because a previous engine stopped before recording it: only what the log says differs.
         */
        boolean unanswered;

        Job(String name, String hostId, String jobId, long submittedMs) {
            this.name = name;
            this.hostId = hostId;
            this.jobId = jobId;
            this.submittedMs = submittedMs;
        }
    }

    private final CapacityProvider provider;
    private final CapacitySettings settings;
    private final RunService runs;
    private final HostRegistry registry;
    private final HostCredentials credentials;
    private final CapacityJobStore store;
    private final Supplier<String> engineUrl;
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    /** The host ids of {@link #jobs}, readable without this manager's lock (the run queue asks under its own). */
    private final java.util.Set<String> jobHosts = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mpfl-capacity");
        t.setDaemon(true);
        return t;
    });
    private volatile String note = "";
    /** What the queue's reasons lead with: the jobs on their way ({@link CapacityOnDemand#coming}). */
    private volatile String coming = "";
    /** Jobs in a row that ended before their host joined; each one doubles the wait before the next submission. */
    private int failedStarts;
    private volatile String startFailure;
    private long nextSubmitMs;
    private volatile String lastError;
    /** The wait after a first failed submission; each failure in a row doubles it, up to {@link #SUBMIT_RETRY_MAX}. */
    static final java.time.Duration SUBMIT_RETRY_FIRST = java.time.Duration.ofSeconds(2);
    /** The longest wait between failed submissions (a scheduler down for hours is asked every 2 minutes). */
    static final java.time.Duration SUBMIT_RETRY_MAX = java.time.Duration.ofMinutes(2);
    /** The wait after a first job that ended before its host joined; each such job in a row doubles it, up to 5 minutes. */
    static final java.time.Duration START_RETRY_FIRST = java.time.Duration.ofSeconds(5);
    static final java.time.Duration START_RETRY_MAX = java.time.Duration.ofMinutes(5);
    /** Submissions in a row that failed (sbatch or slurmrestd refused or did not answer); 0 after one succeeds. */
    private int failedSubmits;
    /** Why the last submission failed, or {@code null} (kept apart from {@link #lastError}, which a good poll clears). */
    private volatile String submitError;
    /** How long a job whose host has not joined is kept while no run waits (at most the idle release). */
    static final long UNWANTED_PENDING_GRACE_MS = 10_000;
    /** The poll's failure, said once until it changes or ends. */
    private final RepeatedProblem pollProblem = new RepeatedProblem();
    /** A release's failure, said once until it changes. */
    private final RepeatedProblem cancelProblem = new RepeatedProblem();
    /** A submission's failure, said once until it changes or a submission succeeds. */
    private final RepeatedProblem submitProblem = new RepeatedProblem();
    /** A failure to look up a previous engine's job by its name, said once until it changes. */
    private final RepeatedProblem lookUpProblem = new RepeatedProblem();
    /**
     * How long a previous engine's job recorded without its id is looked up again while the scheduler does not answer
     * ({@link CapacityException#isTransient}); tests shorten it.
     */
    static final java.time.Duration ADOPT_LOOK_UP_WINDOW = java.time.Duration.ofMinutes(5);
    volatile java.time.Duration adoptLookUpWindow = ADOPT_LOOK_UP_WINDOW;
    /**
     * How long a job ended outside MPFL may stay {@linkplain JobStatus.Phase#ENDING ending} (its processes being
     * stopped: Slurm's KillWait is 30 s by default) before it is taken as ended without its final state; tests shorten it.
     */
    static final java.time.Duration ENDING_WAIT = java.time.Duration.ofSeconds(60);
    volatile java.time.Duration endingWait = ENDING_WAIT;
    /**
     * How long stopping the engine waits for its jobs' cancels, all of them together ({@link #close(boolean)}): a
     * scheduler that hangs holds the stop no longer; tests shorten it.
     */
    static final java.time.Duration STOP_DEADLINE = java.time.Duration.ofSeconds(20);
    volatile java.time.Duration stopDeadline = STOP_DEADLINE;
    /**
     * What {@link #view} returns, taken at the end of every round: readers ({@code GET /api/capacity}) never wait for
     * this manager's lock, which a round holds while the scheduler answers (seconds when it is slow).
     */
    private volatile CapacityView view;
    /** What the scheduler's own limits allow ({@link CapacityProvider#jobsAtOnce}), or {@code null}: it cannot tell. */
    private volatile JobsAtOnce schedulerLimit;
    /** When {@link #schedulerLimit} was last read (0: never). */
    private long limitReadMs;
    /** How often the scheduler's limits are read again (an administrator may change the partition meanwhile). */
    static final java.time.Duration LIMIT_REFRESH = java.time.Duration.ofMinutes(5);
    /** When {@link #start} ran (the engine serves by then): the other hosts announce themselves again from here on. */
    private volatile long startedMs;

    public CapacityManager(CapacityProvider provider, CapacitySettings settings, RunService runs, HostRegistry registry,
                           HostCredentials credentials, CapacityJobStore store, Supplier<String> engineUrl) {
        this.provider = provider;
        this.settings = settings;
        this.runs = runs;
        this.registry = registry;
        this.credentials = credentials;
        this.store = store;
        this.engineUrl = engineUrl;
        this.view = new CapacityView(provider.name(), provider.jobKind(), settings, List.of(), null, null, null, 0, null,
                System.currentTimeMillis());
    }

    /**
     * Adopts the jobs a previous engine recorded (a job recorded without its id is looked up by its
     * name, {@link #lookUpAdopted}; one the scheduler never got is forgotten, with its credential), turns capacity on
     * demand on in the run queue and starts ticking.
     */
    public synchronized void start() {
        startedMs = System.currentTimeMillis();
        for (StoredJob s : store.all()) {
            if (!s.provider().equals(provider.name())) {
                continue;
            }
            jobs.put(s.jobName(), new Job(s.jobName(), s.hostId(), s.jobId(), s.submittedMs()));
            jobHosts.add(s.hostId());
            if (s.jobId() != null) {
                LOG.info("adopted {} {} (host {}) of the previous engine", provider.jobKind(), s.jobId(), s.hostId());
            }
        }
        lookUpAdopted(System.currentTimeMillis());
        readSchedulerLimit(System.currentTimeMillis());
        pruneJobLogs();
        view = takeView(System.currentTimeMillis());
        runs.capacityOnDemand(new org.mpfl.engine.run.CapacityOnDemand() {
            @Override
            public String coming() {
                return coming;
            }

            @Override
            public String note() {
                return note;
            }

            @Override
            public String neverFits(int ranks, boolean restored) {
                return CapacityManager.this.neverFits(ranks, restored);
            }
        });
        long ms = settings.pollInterval().toMillis();
        ticker.scheduleWithFixedDelay(this::tick, 0, ms, TimeUnit.MILLISECONDS);
    }

    /** One round: poll, joins, idle release, submissions, the queue's note. */
    synchronized void tick() {
        try {
            long now = System.currentTimeMillis();
            if (now - limitReadMs >= LIMIT_REFRESH.toMillis()) {
                readSchedulerLimit(now);
            }
            poll(now);
            lookUpAdopted(now);
            releaseIdle(now);
            submitForQueue(now);
            coming = describeComing();
            note = describe();
        } catch (RuntimeException e) {
            LOG.warn("capacity: {}", e.toString(), e);
        }
        view = takeView(System.currentTimeMillis());
    }

    /** The jobs and the state of submissions as of the last round (no lock: see {@link #view}). */
    public CapacityView view() {
        return view;
    }

    /** A view of what this manager holds now; called with its lock held. */
    private CapacityView takeView(long now) {
        List<CapacityView.Job> list = new ArrayList<>();
        for (Job j : jobs.values()) {
            JobStatus s = j.status;
            list.add(new CapacityView.Job(j.jobId, j.name, j.hostId, s == null ? null : s.phase().name(),
                    s == null ? "SUBMITTED" : s.state(),
                    s == null || s.reason() == null || s.reason().equals("None") ? "" : s.reason(),
                    s == null || s.node() == null || s.node().isBlank() ? null : s.node(), j.submittedMs, j.host != null, j.releasing));
        }
        // a past nextSubmitMs holds nothing back: only a wait still running is shown
        Long next = nextSubmitMs > now ? nextSubmitMs : null;
        return new CapacityView(provider.name(), provider.jobKind(), settings, list, next, startFailure, submitError,
                failedSubmits, lastError, now);
    }

    private void poll(long now) {
        List<String> ids = jobs.values().stream().filter(j -> j.jobId != null).map(j -> j.jobId).toList();
        Map<String, JobStatus> states;
        try {
            states = provider.poll(ids);
            if (pollProblem.over()) {
                LOG.info("{}s: the scheduler answers again", provider.jobKind());
            }
            lastError = null;
        } catch (CapacityException e) {
            lastError = e.getMessage();
            // polled every second: the same failure (an expired JWT) is said once, and again when it changes
            if (pollProblem.isNews(e.getMessage())) {
                LOG.warn("{}s: {}", provider.jobKind(), e.getMessage());
            }
            return;
        }
        for (Job j : new ArrayList<>(jobs.values())) {
            if (j.jobId == null) {
                continue;
            }
            JobStatus s = states.getOrDefault(j.jobId, JobStatus.gone(j.jobId));
            JobStatus before = j.status;
            j.status = s;
            Optional<HostInfo> h = registry.host(j.hostId);
            if (s.phase() == JobStatus.Phase.RUNNING && j.runningSeenMs == 0) {
                j.runningSeenMs = now;
            }
            if (h.isPresent()) {
                if (j.host == null) {
                    // the start latency split: the scheduler's (submitted → RUNNING, as seen by a poll) and the host's
                    // (RUNNING → enrolled, seen by the same poll); benchmarks.md reads these from the log
                    long running = j.runningSeenMs == 0 ? now : j.runningSeenMs;
                    LOG.info("{} {}: host {} joined on {} (timing submittedMs={} runningSeenMs={} joinedSeenMs={}; poll every {} ms)",
                            provider.jobKind(), j.jobId, j.hostId, s.node(), j.submittedMs, running, now,
                            settings.pollInterval().toMillis());
                    j.idleSinceMs = now;
                    failedStarts = 0;
                    startFailure = null;
                }
                j.host = h.get();
            }
            if (!s.node().isBlank()) {
                j.node = s.node();
                registry.origin(j.hostId, provider.jobKind() + " " + j.jobId + " on node " + s.node());
            }
            if (s.phase() == JobStatus.Phase.ENDED || s.phase() == JobStatus.Phase.ENDING && j.releasing) {
                ended(j, s, before);
            } else if (s.phase() == JobStatus.Phase.ENDING) {
                ending(j, s, before, now);
            } else if (s.phase() == JobStatus.Phase.RUNNING && j.host == null && !j.releasing
                    && now - j.runningSeenMs >= settings.joinTimeout().toMillis()) {
                withdrawUnjoined(j, s, now);
            }
        }
    }

    /**
     * A job that has run for {@link CapacitySettings#joinTimeout} without its host joining is cancelled and counted as a
     * failed start (the next job waits as after one that ended before its host joined): a host that cannot reach the
     * engine (a {@code --public-url} the nodes cannot reach, a firewall) retries for ever, and would hold the node up to
     * the job's time limit while the queued runs said "host starting".
     */
    private void withdrawUnjoined(Job j, JobStatus s, long now) {
        String why = provider.jobKind() + " " + j.jobId + on(j, s) + " ran for " + (now - j.runningSeenMs) / 1000 + " s but its host "
                + j.hostId + " never joined the engine at " + engineUrl.get() + " (--join-timeout " + settings.joinTimeout().toSeconds()
                + " s)";
        try {
            provider.cancel(j.jobId);
        } catch (CapacityException e) {
            // kept, and tried again next tick; said once while the failure stays the same
            lastError = why + "; " + cancelFailed(j, e) + "; tried again every " + settings.pollInterval().toSeconds() + " s";
            if (cancelProblem.isNews(e.getMessage())) {
                LOG.warn("{}", lastError);
            }
            return;
        }
        j.releasing = true;
        failedStarts++;
        long wait = doubling(START_RETRY_FIRST, START_RETRY_MAX, failedStarts).toMillis();
        nextSubmitMs = System.currentTimeMillis() + wait;
        startFailure = why + ": cancelled; can the nodes reach that URL (mpflc up --public-url), and does the host start ("
                + output(j) + ")? " + failedStarts + " " + provider.jobKind() + (failedStarts == 1 ? "" : "s")
                + " in a row without a host; next one in " + wait / 1000 + " s";
        LOG.warn("{}", startFailure);
    }

    /**
     * A job not released by this engine is ending (Slurm's COMPLETING: it stops the job's processes, and says only then
     * whether it was CANCELLED, hit its TIMEOUT, lost its node…): its end is reported with that final state, on a
     * later poll. Meanwhile its host is said to be ending outside MPFL, for a run that loses it first; a job still
     * ending after {@link #ENDING_WAIT} is taken as ended then, without its final state.
     */
    private void ending(Job j, JobStatus s, JobStatus before, long now) {
        if (j.endingSinceMs == 0) {
            j.endingSinceMs = now;
            String why = provider.jobKind() + " " + j.jobId + on(j, s) + " is being ended outside MPFL (" + s.state()
                    + ": the scheduler is stopping its processes; its final state follows)";
            LOG.info("{}: host {}", why, j.hostId);
            registry.origin(j.hostId, why);
        } else if (now - j.endingSinceMs >= endingWait.toMillis()) {
            ended(j, s, before);
        }
    }

    /** {@code " on node N"} with the node the job runs or ran on, or empty when none was ever said. */
    private static String on(Job j, JobStatus s) {
        String node = s.node().isBlank() ? j.node : s.node();
        return node.isBlank() ? "" : " on node " + node;
    }

    /**
     * Looks up by name the jobs a previous engine recorded without their id (it stopped between submitting one and
     * recording the id): one found is adopted, one the scheduler does not have is forgotten with its credential. While
     * the scheduler does not answer ({@link CapacityException#isTransient}) a job is looked up again on every round for
     * {@link #adoptLookUpWindow}, counted as a job on its way (nothing is submitted in its place); after that, or on a
     * refusal, it is given up: its credential is revoked (its host can never join) and its record kept for the next
     * engine, and the log says how to end it by hand.
     */
    private void lookUpAdopted(long now) {
        for (Job j : new ArrayList<>(jobs.values())) {
            if (j.jobId != null) {
                continue;
            }
            String jobId;
            try {
                jobId = provider.find(j.name).stream().map(JobStatus::jobId).findFirst().orElse(null);
            } catch (CapacityException e) {
                if (j.lookUpFailingSinceMs == 0) {
                    j.lookUpFailingSinceMs = now;
                }
                long left = j.lookUpFailingSinceMs + adoptLookUpWindow.toMillis() - now;
                if (e.isTransient() && left > 0) {
                    lastError = "cannot look up " + provider.jobKind() + " " + j.name + whose(j) + ": " + e.getMessage()
                            + " (asked again on every poll for " + (left + 999) / 1000 + " s more)";
                    if (lookUpProblem.isNews(e.getMessage())) {
                        LOG.warn("{}", lastError);
                    }
                    continue;
                }
                LOG.warn("gave up looking up {} {} (host {}){}: {}{}; its credential is revoked and its record"
                        + " kept for the next engine: if the scheduler runs a job named {}, end it by hand", provider.jobKind(),
                        j.name, j.hostId, whose(j), e.getMessage(), e.isTransient() ? " (for " + adoptLookUpWindow.toSeconds() + " s)" : "",
                        j.name);
                forget(j, true, false);
                continue;
            }
            lookUpProblem.over();
            if (jobId == null) {
                LOG.info("{} {}{} never reached the scheduler: forgotten", provider.jobKind(), j.name, whose(j));
                forget(j, true);
                continue;
            }
            j.jobId = jobId;
            // held from now as a job just submitted: its host may have joined while the submission hung (the next poll
            // sees it), and releaseIdle, later in this round, would otherwise withdraw it as pending too long for nobody
            j.idleSinceMs = now;
            store.save(new StoredJob(j.name, provider.name(), j.hostId, jobId, j.submittedMs));
            LOG.info("adopted {} {} (host {}, found by its name {}){}", provider.jobKind(), jobId, j.hostId, j.name, whose(j));
            if (j.unanswered) {
                failedSubmits = 0;
                submitError = null;
                submitProblem.over();
            }
        }
    }

    /** Which job without its id {@code j} is, for the log: one of the previous engine, or one whose submission got no answer. */
    private static String whose(Job j) {
        return j.unanswered ? " (its submission got no answer)" : " of the previous engine";
    }

    /**
     * A job ended: released by us, or lost (its host's runs hear of it as of a lost host).
     *
     * @param before what the previous poll said of it, or {@code null} (not polled yet)
     */
    private void ended(Job j, JobStatus s, JobStatus before) {
        if (!j.releasing) {
            String node = on(j, s);
            String reason = s.reason().isBlank() || s.reason().equals("None") ? "" : " (" + s.reason() + ")";
            // the engine did not cancel it: someone did with scancel (an administrator, the user): say so, not "ended"
            boolean cancelledOutside = s.state().startsWith("CANCELLED");
            String why = cancelledOutside
                    ? provider.jobKind() + " " + j.jobId + node + " was cancelled outside MPFL (" + s.state() + reason
                            + ": scancel by an administrator or its user)"
                            + (j.host == null && (before == null || before.phase() == JobStatus.Phase.PENDING)
                            ? " while it was pending, before its host joined" : "")
                    : s.phase() == JobStatus.Phase.ENDING
                    ? provider.jobKind() + " " + j.jobId + node + " was ended outside MPFL and is still " + s.state() + reason
                            + " after " + endingWait.toSeconds() + " s (its final state is not known yet)"
                    : provider.jobKind() + " " + j.jobId + node + " ended: " + s.state() + reason + s.meaning();
            LOG.warn(j.host != null ? "{}: host {} is lost" : "{}: its host {} never joined", why, j.hostId);
            registry.origin(j.hostId, why);
            if (j.host != null) {
                registry.lost(j.host);
            } else {
                // a job that cannot start a host (a wrong path, a directory the node lacks…) must not be
                // submitted again and again: back off, and say why in the queue's reasons
                failedStarts++;
                long wait = doubling(START_RETRY_FIRST, START_RETRY_MAX, failedStarts).toMillis();
                nextSubmitMs = System.currentTimeMillis() + wait;
                startFailure = cancelledOutside
                        ? why + "; the next " + provider.jobKind() + " in " + wait / 1000 + " s"
                        : failedStarts + " " + provider.jobKind() + (failedStarts == 1 ? "" : "s") + " in a row ended before"
                        + " their host joined (last: " + why + "; " + output(j) + "); next one in " + wait / 1000 + " s";
            }
        } else {
            LOG.info("{} {} released (host {})", provider.jobKind(), j.jobId, j.hostId);
        }
        forget(j, j.releasing);
    }

    /**
     * Where to read what a job that never started its host said: its output file and its last line, or, when the
     * file is missing, what that means (the job never ran, or the nodes write the log directory somewhere else).
     */
    private String output(Job j) {
        java.nio.file.Path log = provider.jobLog(j.name);
        if (log == null) {
            return "its output: " + j.name + ".log in the job log directory";
        }
        if (!java.nio.file.Files.isRegularFile(log)) {
            return "its output file " + log + " does not exist: the job ended before it ran on a node, or the node"
                    + " cannot write there (the job log directory must be on a file system the nodes share, and exist on them)";
        }
        try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(log, java.nio.charset.StandardCharsets.UTF_8)) {
            String last = lines.map(String::strip).filter(l -> !l.isEmpty()).reduce((a, b) -> b).orElse("");
            return last.isEmpty() ? "its output " + log + " is empty"
                    : "its output " + log + " ends: " + (last.length() > 300 ? last.substring(0, 300) + "…" : last);
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return "its output: " + log + " (cannot read it: " + e.getMessage() + ")";
        }
    }

    /** Forgets a job: its record, its credential (never valid again), and where its host came from if released. */
    private void forget(Job j, boolean clean) {
        forget(j, clean, true);
        pruneJobLogs();
    }

    /** Keeps the job log directory to the newest job outputs ({@link JobLogs}); those of jobs still held stay. */
    private void pruneJobLogs() {
        java.nio.file.Path dir = provider.jobLogDir();
        if (dir == null) {
            return;
        }
        try {
            List<java.nio.file.Path> deleted = JobLogs.prune(dir, java.util.Set.copyOf(jobs.keySet()), System.currentTimeMillis());
            if (!deleted.isEmpty()) {
                LOG.info("deleted {} old job output file(s) in {} (kept: the {} newest, none older than {} days)", deleted.size(), dir,
                        JobLogs.KEEP_NEWEST, JobLogs.MAX_AGE.toDays());
            }
        } catch (java.io.IOException | RuntimeException e) {
            LOG.warn("cannot prune the job output files in {}: {}", dir, e.toString());
        }
    }

    /** As {@link #forget(Job, boolean)}; without {@code record}, its record stays in the run store (a cancel failed). */
    private void forget(Job j, boolean clean, boolean record) {
        jobs.remove(j.name);
        jobHosts.remove(j.hostId);
        credentials.forHost(j.hostId).ifPresent(c -> credentials.revoke(c.id()));
        // quietly: a job is forgotten once its host was released idle or reported lost already, or as the engine stops
        // (its runs stay as they are for the engine started next); a host that stops with ranks says goodbye itself
        registry.host(j.hostId).ifPresent(h -> registry.removeQuietly(j.hostId));
        if (clean) {
            registry.origin(j.hostId, null);
        }
        if (record) {
            store.delete(j.name);
        }
    }

    private void releaseIdle(long now) {
        Map<String, Integer> busy = runs.busyRanks();
        boolean waiting = !runs.queuedRanks().isEmpty();
        for (Job j : jobs.values()) {
            if (j.releasing || j.jobId == null || j.endingSinceMs != 0) {
                continue;
            }
            if (busy.containsKey(j.hostId) || waiting) {
                j.idleSinceMs = now;
                continue;
            }
            long since = j.idleSinceMs == 0 ? j.submittedMs : j.idleSinceMs;
            // a job whose host has not joined yet holds nothing: once no run waits for it, it is withdrawn soon, or it
            // would start a host for nobody hours later when the partition frees up (the grace covers a restarted
            // engine, whose queue is restored a moment after it adopts its jobs)
            long limit = j.host == null ? Math.min(settings.idleRelease().toMillis(), UNWANTED_PENDING_GRACE_MS)
                    : settings.idleRelease().toMillis();
            if (now - since >= limit) {
                try {
                    provider.cancel(j.jobId);
                    j.releasing = true;
                    LOG.info(j.host == null ? "{} {}: no run waits for host {} any more, withdrawn" : "{} {}: host {} idle for {} s,"
                            + " released", provider.jobKind(), j.jobId, j.hostId, settings.idleRelease().toSeconds());
                } catch (CapacityException e) {
                    // kept, and tried again next tick; said once while the failure stays the same
                    lastError = cancelFailed(j, e) + "; tried again every " + settings.pollInterval().toSeconds() + " s";
                    if (cancelProblem.isNews(e.getMessage())) {
                        LOG.warn("{}; tried again on every poll", cancelFailed(j, e));
                    }
                }
            }
        }
    }

    private void submitForQueue(long now) {
        int wanted = runs.queuedRanks().stream().mapToInt(Integer::intValue).sum();
        if (wanted == 0 || now < nextSubmitMs) {
            return;
        }
        Map<String, Integer> busy = runs.busyRanks();
        int live = 0;
        for (Job j : jobs.values()) {
            if (j.releasing) {
                continue;
            }
            live++;
            if (j.endingSinceMs != 0) {
                continue; // it still holds its node at the scheduler, but brings no place
            }
            // places coming (a job whose host has not joined) or free (a joined host's unused ones)
            wanted -= j.host == null ? settings.cpusPerNode() : Math.max(0, j.host.capacity() - busy.getOrDefault(j.hostId, 0));
        }
        int toSubmit = Math.min((wanted + settings.cpusPerNode() - 1) / settings.cpusPerNode(), settings.maxNodes() - live);
        for (int i = 0; i < toSubmit; i++) {
            if (!submitOne(now)) {
                return;
            }
        }
    }

    private boolean submitOne(long now) {
        String hostId = provider.name() + "-" + DomainToken.generate().substring(0, 10).toLowerCase(java.util.Locale.ROOT)
                .replaceAll("[^a-z0-9]", "x");
        String name = "mpfl-" + hostId;
        Job j = new Job(name, hostId, null, now);
        // recorded before it exists: a crash from here on leaves a record the next engine resolves by name
        store.save(new StoredJob(name, provider.name(), hostId, null, now));
        try {
            HostCredential c = credentials.issue(hostId, engineUrl.get());
            j.jobId = provider.submit(new HostJob(name, hostId, c.text(), engineUrl.get(), settings.cpusPerNode()));
        } catch (CapacityException | HostCredentials.HostIdTakenException | RuntimeException e) {
            // not again on the next tick: a scheduler that is down or refuses is asked less and less often
            failedSubmits++;
            if (e instanceof CapacityException ce && ce.isOutcomeUnknown()) {
                // the scheduler may have the job (sbatch timed out, or the stopping engine interrupted it, after slurmctld
                // took it): kept with its record and credential, and looked up by its name like a previous engine's job
                // (lookUpAdopted, next round; close, when the engine stops), never forgotten to start a host for nobody
                j.unanswered = true;
                jobs.put(name, j);
                jobHosts.add(hostId);
                nextSubmitMs = Math.max(nextSubmitMs, System.currentTimeMillis() + submitRetry(failedSubmits).toMillis());
                LOG.warn("no answer to the submission of {} {} (host {}): {}; looked up by its name", provider.jobKind(), name, hostId,
                        e.getMessage());
                return false;
            }
            long wait = submitRetry(failedSubmits).toMillis();
            // from the failure, not the round's start: an sbatch that timed out after 30 s is not tried again at once
            nextSubmitMs = Math.max(nextSubmitMs, System.currentTimeMillis() + wait);
            submitError = e.getMessage();
            if (submitProblem.isNews(e.getMessage())) {
                LOG.warn("cannot submit a {} for the run queue: {}; trying again in {} s, then less often (up to every {} s)",
                        provider.jobKind(), e.getMessage(), wait / 1000, SUBMIT_RETRY_MAX.toSeconds());
            }
            forget(j, true);
            return false;
        }
        failedSubmits = 0;
        submitError = null;
        store.save(new StoredJob(name, provider.name(), hostId, j.jobId, now));
        submitProblem.over();
        jobs.put(name, j);
        jobHosts.add(hostId);
        LOG.info("submitted {} {} (host {}) for the run queue", provider.jobKind(), j.jobId, hostId);
        lastError = null;
        return true;
    }

    /**
     * Reads what the scheduler's limits allow ({@link CapacityProvider#jobsAtOnce}); a scheduler that does not answer
     * keeps the last answer (none: {@code --max-nodes} alone) and is asked again on the next refresh.
     */
    private void readSchedulerLimit(long now) {
        limitReadMs = now;
        try {
            JobsAtOnce read = provider.jobsAtOnce(settings.cpusPerNode());
            JobsAtOnce before = schedulerLimit;
            schedulerLimit = read;
            if (read != null && read.jobs() < settings.maxNodes() && (before == null || before.jobs() != read.jobs())) {
                LOG.info("{}s: {}, fewer than --max-nodes {}: runs needing more than {} ranks can never fit", provider.jobKind(),
                        read.why(), settings.maxNodes(), read.jobs() * settings.cpusPerNode());
            }
        } catch (CapacityException | RuntimeException e) {
            LOG.warn("cannot read the {} limits of the scheduler (asked again in {} min): {}", provider.jobKind(),
                    LIMIT_REFRESH.toMinutes(), e.getMessage());
        }
    }

    /**
     * Why a run of {@code ranks} ranks can never be placed: more than every job this provider may run at once
     * ({@link CapacitySettings#maxNodes}, or fewer when the scheduler's own limits say so: {@link #schedulerLimit}, ×
     * {@link CapacitySettings#cpusPerNode}) and the other hosts registered now hold together; {@code null} when it may
     * fit (or another host takes more ranks than its capacity). For a run {@code restored} after an engine restart, also
     * {@code null} while {@linkplain #othersMayComeBack other hosts may still announce themselves again}: what they
     * hold is not known before. Called under the run queue's lock, so it reads only {@link #jobHosts}, the registry,
     * the credentials and volatile fields, never this manager's lock.
     */
    String neverFits(int ranks, boolean restored) {
        JobsAtOnce limit = schedulerLimit;
        boolean scheduler = limit != null && limit.jobs() < settings.maxNodes();
        int jobs = scheduler ? limit.jobs() : settings.maxNodes();
        int brought = jobs * settings.cpusPerNode();
        int others = 0;
        for (HostInfo h : registry.hosts()) {
            if (jobHosts.contains(h.hostId())) {
                continue;
            }
            if (h.oversubscribe()) {
                return null;
            }
            others += h.capacity();
        }
        if (ranks <= brought + others || restored && othersMayComeBack(System.currentTimeMillis())) {
            return null;
        }
        if (scheduler) {
            return "the run needs " + ranks + " ranks at once, more than " + provider.jobKind() + "s can ever bring: " + limit.why()
                    + ", fewer than --max-nodes " + settings.maxNodes() + ": " + jobs + " × --cpus-per-node " + settings.cpusPerNode()
                    + " = " + brought + " places" + (others > 0 ? " plus the " + others + " of the other registered hosts" : "")
                    + "; run it with fewer ranks (or --oversubscribe), or start the engine with a larger --partition";
        }
        return "the run needs " + ranks + " ranks at once, more than " + provider.jobKind() + "s can ever bring: --max-nodes "
                + settings.maxNodes() + " × --cpus-per-node " + settings.cpusPerNode() + " = " + brought + " places"
                + (others > 0 ? " plus the " + others + " of the other registered hosts" : "") + "; run it with fewer ranks"
                + " (or --oversubscribe), or start the engine with a larger --max-nodes or --cpus-per-node";
    }

    /**
     * Whether a host other than this provider's jobs may still announce itself again after the engine restarted: a host
     * credential of this engine (announcing needs one) whose host is not registered, within the registry's heartbeat
     * timeout of {@link #start} (a host beats every third of it and announces again when the new engine does not know
     * its beat). Hosts that do not come back by then are not waited for: a restored run that needs them fails then.
     */
    private boolean othersMayComeBack(long now) {
        if (now - startedMs >= registry.heartbeatTimeout().toMillis()) {
            return false;
        }
        return credentials.list().stream().anyMatch(c -> c.kind() == HostCredentials.Kind.HOST
                && !jobHosts.contains(c.hostId()) && registry.host(c.hostId()).isEmpty());
    }

    /**
     * What the queue's reasons lead with: the jobs on their way ({@code waiting for a host from Slurm job 1234 PENDING
     * (Resources)}), or empty.
     */
    private String describeComing() {
        List<String> on = new ArrayList<>();
        for (Job j : jobs.values()) {
            if (j.releasing || j.host != null || j.endingSinceMs != 0) {
                continue;
            }
            if (j.jobId == null) {
                on.add(provider.jobKind() + " " + j.name + " (" + (j.unanswered ? "its submission got no answer" : "of the previous engine")
                        + ": being looked up by its name)");
                continue;
            }
            JobStatus s = j.status;
            on.add(provider.jobKind() + " " + j.jobId + " " + (s == null ? "SUBMITTED"
                    : s.phase() == JobStatus.Phase.RUNNING ? s.describe() + ", host starting" : s.describe()));
        }
        return on.isEmpty() ? "" : "waiting for " + (on.size() == 1 ? "a host from " : "hosts from ") + String.join(" and ", on);
    }

    /** What the queue's reasons end with: the jobs ending outside MPFL, the node limit, the last errors. */
    private String describe() {
        List<String> parts = new ArrayList<>();
        int live = 0;
        for (Job j : jobs.values()) {
            if (j.releasing) {
                continue;
            }
            live++;
            if (j.host == null && j.jobId != null && j.endingSinceMs != 0) {
                parts.add(provider.jobKind() + " " + j.jobId + " " + j.status.describe());
            }
        }
        if (live >= settings.maxNodes()) {
            parts.add("at --max-nodes " + settings.maxNodes() + " (" + live + " " + provider.jobKind() + (live == 1 ? "" : "s")
                    + " of this engine)");
        }
        if (startFailure != null) {
            parts.add(startFailure);
        }
        String failed = submitError;
        if (failed != null) {
            long in = Math.max(0, nextSubmitMs - System.currentTimeMillis());
            parts.add(provider.jobKind() + "s cannot be submitted: " + failed + " (" + failedSubmits + " failure"
                    + (failedSubmits == 1 ? "" : "s") + " in a row; next try in " + (in + 999) / 1000 + " s)");
        }
        String err = lastError;
        if (err != null) {
            parts.add(provider.jobKind() + "s cannot be submitted or asked about: " + err);
        }
        return String.join("; ", parts);
    }

    /** The wait after {@code failures} failed submissions in a row: 2 s, 4 s, 8 s … up to 2 minutes. */
    static java.time.Duration submitRetry(int failures) {
        return doubling(SUBMIT_RETRY_FIRST, SUBMIT_RETRY_MAX, failures);
    }

    /** {@code first} after one failure, doubled with each further failure in a row, never more than {@code max}. */
    private static java.time.Duration doubling(java.time.Duration first, java.time.Duration max, int failures) {
        return java.time.Duration.ofMillis(Math.min(max.toMillis(), first.toMillis() << Math.min(Math.max(failures, 1) - 1, 20)));
    }

    /** What a failed cancel says: the job, why, and the command that ends it by hand. */
    private String cancelFailed(Job j, CapacityException e) {
        String byHand = provider.cancelByHand(j.jobId);
        return "cannot cancel " + provider.jobKind() + " " + j.jobId + " (host " + j.hostId + "): " + e.getMessage()
                + (byHand == null ? "" : "; to end it by hand: " + byHand);
    }

    /** The ids of the jobs this engine holds now (for status pages and tests). */
    public synchronized List<String> jobIds() {
        return jobs.values().stream().filter(j -> j.jobId != null).map(j -> j.jobId).toList();
    }

    /**
     * Stops ticking. With {@code release}, every job is cancelled (an engine that stops for good leaves
     * no job behind); without, they stay for the next engine to adopt. The jobs are cancelled all at once, and the
     * stop waits for them {@link #stopDeadline} at most in all (a scheduler that hangs held it 30 s per job): a job
     * whose cancel fails (the scheduler is down, {@code scancel} errs) or does not answer by then keeps its record in
     * the run store, so that the next engine adopts it and releases it when idle; its credential is revoked all the
     * same. Returns what may be left behind, one line per job with the command that ends it by hand, then one line with
     * the command that ends them all (also logged): empty when nothing was.
     */
    public List<String> close(boolean release) {
        long deadline = System.nanoTime() + stopDeadline.toNanos();
        ticker.shutdownNow();
        try {
            // a round under way is interrupted (a tool it runs is stopped): half the deadline at most, the rest is the cancels'
            ticker.awaitTermination(Math.min(10_000, stopDeadline.toMillis() / 2), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<String> left = new ArrayList<>();
        if (release) {
            synchronized (this) {
                releaseAll(deadline, left);
                view = takeView(System.currentTimeMillis());
            }
        }
        return left;
    }

    /** {@link #close(boolean)}'s release: every job's cancel at once, all waited for until {@code deadline} (nanoTime). */
    private void releaseAll(long deadline, List<String> left) {
        List<Job> toEnd = new ArrayList<>();
        for (Job j : new ArrayList<>(jobs.values())) {
            if (j.jobId != null && j.releasing) {
                forget(j, true); // cancelled already, on its way out
            } else {
                toEnd.add(j);
            }
        }
        if (toEnd.isEmpty()) {
            return;
        }
        java.util.concurrent.ExecutorService pool = Executors.newFixedThreadPool(Math.min(toEnd.size(), 16), r -> {
            Thread t = new Thread(r, "mpfl-capacity-stop");
            t.setDaemon(true);
            return t;
        });
        Map<Job, java.util.concurrent.Future<?>> cancels = new LinkedHashMap<>();
        for (Job j : toEnd) {
            cancels.put(j, pool.submit(() -> {
                if (j.jobId != null) {
                    provider.cancel(j.jobId);
                } else {
                    // its submission got no answer, or a previous engine's record: the scheduler may have it by its name
                    for (JobStatus found : provider.find(j.name)) {
                        provider.cancel(found.jobId());
                    }
                }
                return null;
            }));
        }
        List<String> ids = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Map.Entry<Job, java.util.concurrent.Future<?>> c : cancels.entrySet()) {
            Job j = c.getKey();
            String said;
            try {
                c.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                forget(j, true);
                continue;
            } catch (java.util.concurrent.TimeoutException e) {
                said = "no answer within the " + stopDeadline.toSeconds() + " s the engine's stop waits for its jobs";
            } catch (java.util.concurrent.ExecutionException e) {
                said = e.getCause() instanceof CapacityException ce ? ce.getMessage() : String.valueOf(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                said = "the engine's stop was interrupted";
            }
            String byHand = j.jobId != null ? provider.cancelByHand(j.jobId) : provider.cancelByHand(List.of(), List.of(j.name));
            String line = j.jobId != null
                    ? provider.jobKind() + " " + j.jobId + " (host " + j.hostId + ") may be left: cannot cancel it: " + said
                            + "; its record is kept for the next engine"
                    : provider.jobKind() + " " + j.name + " (host " + j.hostId + ") may be left: cannot look it up by its name or"
                            + " cancel it: " + said + "; its record is kept for the next engine: if the scheduler runs a job named "
                            + j.name + ", end it by hand";
            line += byHand == null ? "" : (j.jobId != null ? "; to end it by hand: " : ": ") + byHand;
            LOG.warn("{}", line);
            left.add(line);
            (j.jobId != null ? ids : names).add(j.jobId != null ? j.jobId : j.name);
            forget(j, true, false);
        }
        // a cancel still waiting is given up: its tool is stopped (an interrupted scancel is killed, briefly waited for
        // so that none outlives the engine's JVM)
        pool.shutdownNow();
        try {
            pool.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!left.isEmpty()) {
            String all = provider.cancelByHand(ids, names);
            int n = ids.size() + names.size();
            String line = n + " " + provider.jobKind() + (n == 1 ? "" : "s") + " may be left in the scheduler as the engine stops"
                    + " (the next engine started on this data adopts " + (n == 1 ? "it" : "them") + ")"
                    + (all == null || all.isBlank() ? "" : "; to cancel them by hand: " + all);
            LOG.warn("{}", line);
            left.add(line);
        }
    }

    @Override
    public void close() {
        close(true);
    }
}
