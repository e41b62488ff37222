package org.mpfl.runtime.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.mpfl.protocol.EngineReach;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RepeatedProblem;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.Sites;
import org.mpfl.protocol.relay.RelayLink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a service host registered with an engine: announces it ({@code POST /api/registry/hosts}
 * with hostId, SOAP base URL, binary address, service types, capacity, site) and then sends a heartbeat
 * every few seconds ({@code POST /api/registry/hosts/{hostId}/heartbeat}). An unreachable engine is
 * a logged warning and a retry on the next beat, never a crash; a heartbeat the engine does not
 * know (404, e.g. after an engine restart) makes the host announce itself again. {@link #close()}
 * (the host's shutdown) takes the host out of the engine's registry at once. Every request carries the
 * host's credential ({@link HostCredential#authorization()}); nothing else of the host's is sent.
 *
 * <p>A host that has not reached its engine for longer than the engine's heartbeat timeout and its
 * engine-loss grace (both from the announcement's answer, {@code heartbeatTimeoutMs} and
 * {@code engineLossGraceMs}) aborts every domain it runs, saying why: by then the engine has either
 * counted the host as lost and failed its runs (its abort could not arrive: a host cut off by the
 * network would otherwise keep its ranks running, and holding their memory, for ever), or has been
 * down for longer than it asked its hosts to wait for it. Within the grace the ranks run on, so an
 * engine that restarts re-attaches to them (the hosts' events wait in their {@code EventPoster}s).
 * A host that never reached an engine gives up nothing; a host started without an engine has no
 * announcer at all.
 *
 * <p>A host behind a relay ({@link #relayLink}) likewise aborts every domain it runs once its link to the relay has
 * been down for longer than the engine's relay-return bound ({@code relayReturnMs} in the announcement's answer,
 * {@value #DEFAULT_RELAY_RETURN_MS} ms from an engine that does not say): the engine failed or restarted those runs
 * when it lost the relay, waited that long for it, and cannot reach their ranks, which may be blocked on peers across
 * the relay with no event to post (the engine's refusal of a domain's events ends it only when one is posted).
 */
public final class EngineAnnouncer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineAnnouncer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    /** The longest engine-loss grace a host accepts from its engine (one day). */
    static final long MAX_ENGINE_LOSS_GRACE_MS = 24 * 3_600_000L;
    /** The relay-return bound of an engine that does not say its own (the engine's default). */
    static final long DEFAULT_RELAY_RETURN_MS = 60_000;

    private final ServiceHost host;
    private final String engineUrl;
    private final HostCredential credential;
    private final int capacity;
    private final boolean oversubscribe;
    /** The site this host is in ({@link Sites}). */
    private final String site;
    /**
     * This host process's instance: new each time it starts, so that the engine replaces a stale entry
     * of the same host id (a process killed without saying goodbye) and lifts what it was punished for.
     */
    private final String instance = java.util.UUID.randomUUID().toString();
    /** Verifies an {@code https} engine against the host's TLS settings' CA. */
    private final HttpClient http;
    /** The relay this host holds a connection to ({@code host:port}), announced so the engine reaches it there. */
    private volatile String relay;
    /** Two threads: the beats (each may block up to {@link #CALL_TIMEOUT}) and the loss check, which must not wait for them. */
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "mpfl-engine-heartbeat");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean announced;
    private volatile boolean started;
    private volatile long intervalMs = 3_000;
    /** The engine's heartbeat timeout, as its announcement answer says (the engine's default until then). */
    private volatile long engineTimeoutMs = 10_000;
    /**
     * How long the engine asked its hosts to keep running ranks while it cannot be reached (its
     * {@code engineLossGraceMs}; 0 from an engine that does not say): a restarted engine re-attaches
     * to them within it.
     */
    private volatile long engineLossGraceMs;
    /** How long this host keeps its ranks while its relay link is down (the engine's {@code relayReturnMs}). */
    private volatile long relayReturnMs = DEFAULT_RELAY_RETURN_MS;
    /** This host's link to its relay, once it started; {@code null}: none (the host accepts inbound connections). */
    private volatile RelayLink relayLink;
    /** When the engine last answered an announcement or a heartbeat (nanoTime); 0: never. */
    private volatile long lastContactNanos;
    private final RepeatedProblem problem = new RepeatedProblem();
    /** Told once when the engine refuses this host's credential; {@code null}: keep trying (a host inside Tomcat). */
    private volatile Consumer<String> credentialRefused;
    private volatile Runnable firstAnnounced;
    /** Told once when the first announcement is settled ({@link #onFirstAnswer}). */
    private volatile Runnable firstAnswer;
    /** The last beat's answer was the engine's "ask again shortly" ({@link EngineRefusal#INSTANCE_PENDING}). */
    private volatile boolean pending;
    /**
     * The engine refused the credential and the listener was told, or (without a listener) another live process holds
     * it: no more beats.
     */
    private volatile boolean refused;

    /**
     * @param engineUrl   the engine's base URL ({@code http://host:port})
     * @param credential  the host's credential (its host id must be the host's): every request carries it
     * @param capacity    ranks this host should take
     */
    public EngineAnnouncer(ServiceHost host, String engineUrl, HostCredential credential, int capacity) {
        this(host, engineUrl, credential, capacity, false);
    }

    /**
     * @param oversubscribe whether the engine may place more ranks here than {@code capacity} when every
     *                      host is full ({@code mpflc host --oversubscribe}, as mpirun's)
     */
    public EngineAnnouncer(ServiceHost host, String engineUrl, HostCredential credential, int capacity, boolean oversubscribe) {
        this(host, engineUrl, credential, capacity, oversubscribe, Sites.DEFAULT);
    }

    /**
     * @param site the site this host is in ({@code mpflc host --site}; {@code null}: {@link Sites#DEFAULT})
     * @throws IllegalArgumentException for a malformed site name
     */
    public EngineAnnouncer(ServiceHost host, String engineUrl, HostCredential credential, int capacity, boolean oversubscribe,
                           String site) {
        if (credential == null || !credential.hostId().equals(host.hostId())) {
            throw new IllegalArgumentException("the announcer needs the credential of host " + host.hostId());
        }
        this.host = host;
        this.http = host.tls().httpClient().connectTimeout(CALL_TIMEOUT).build();
        this.engineUrl = engineUrl.endsWith("/") ? engineUrl.substring(0, engineUrl.length() - 1) : engineUrl;
        this.credential = credential;
        this.capacity = capacity;
        this.oversubscribe = oversubscribe;
        this.site = Sites.of(site);
    }

    /**
     * Tells {@code listener} (once, with what to say) when the engine answers 401 or 409 with its mark
     * ({@link EngineRefusal#refusesCredential()}), which waiting does not mend:
     * the credential is unknown, revoked or has a wrong secret, or it is a relay's. The announcer stops beating then;
     * without a listener it keeps trying, warning once.
     */
    public void onCredentialRefused(Consumer<String> listener) {
        this.credentialRefused = listener;
    }

    /**
     * Runs {@code action} once, on the announcer's thread, after the engine first took this host's announcement: a
     * relay lets a host register only the addresses the engine knows for it, so the relay link starts then.
     */
    public void onFirstAnnouncement(Runnable action) {
        this.firstAnnounced = action;
    }

    /**
     * Runs {@code action} once, on the announcer's thread, when the first announcement is settled: the engine took it,
     * refused the credential for good (after the {@link #onCredentialRefused} listener heard why), or answered
     * otherwise or could not be reached (the announcer goes on trying) — not while the engine asks it to announce again
     * shortly ({@link EngineRefusal#INSTANCE_PENDING}). {@code mpflc host} prints its ready line only then, so a
     * refused host never says it is ready.
     */
    public void onFirstAnswer(Runnable action) {
        this.firstAnswer = action;
    }

    /** Whether it stopped asking the engine for good (a refusal of its credential, or another live process of its host). */
    boolean gaveUp() {
        return refused;
    }

    /** Announces now (in the background) and keeps beating. */
    public void start() {
        started = true;
        timer.execute(this::beat);
        timer.scheduleWithFixedDelay(this::checkContact, 1, 1, TimeUnit.SECONDS);
        timer.scheduleWithFixedDelay(this::checkRelay, 1, 1, TimeUnit.SECONDS);
    }

    /** The link this host holds to its relay ({@code mpflc host --relay}), watched from now on ({@link #checkRelay}). */
    public void relayLink(RelayLink link) {
        this.relayLink = link;
    }

    /**
     * Aborts this host's domains when its relay link has been down for longer than the engine's relay-return bound:
     * the engine failed or restarted their runs when it lost the relay, gave up waiting for it by then, and nothing
     * else would end ranks blocked on peers across it. Checked every second; a relay killed breaks the link at once,
     * one cut off the network within the link's read timeout (30 s).
     */
    private void checkRelay() {
        RelayLink link = relayLink;
        long downMs = link == null ? 0 : link.lostForMs();
        long boundMs = relayReturnMs;
        if (downMs <= boundMs) {
            return;
        }
        try {
            int n = host.registry().abortAllLocally("this host has been without its relay " + relay + " for " + downMs
                    + " ms, longer than the engine's relay-return bound (" + boundMs + " ms): the engine has given up its ranks"
                    + " here and cannot reach them");
            if (n > 0) {
                LOG.warn("lost the relay {} ({} ms without its registration there, the engine's relay-return bound is {} ms):"
                        + " aborted {} domain(s) running here", relay, downMs, boundMs, n);
            }
        } catch (RuntimeException e) {
            LOG.warn("could not abort the domains after losing the relay: {}", e.toString());
        }
    }

    /**
     * Aborts this host's domains when the engine has been out of reach for longer than its heartbeat
     * timeout: the engine has given this host up by then (its runs here failed), and nothing else
     * would ever end their ranks. Checked every second, apart from the beats, so the bound holds
     * while a beat hangs on an unanswered connect.
     */
    private void checkContact() {
        long last = lastContactNanos;
        if (last == 0) {
            return;
        }
        long silentMs = (System.nanoTime() - last) / 1_000_000;
        long boundMs = Math.max(engineTimeoutMs, engineLossGraceMs);
        if (silentMs <= boundMs) {
            return;
        }
        try {
            int n = host.registry().abortAllLocally("this host has not reached its engine at " + engineUrl + " for "
                    + silentMs + " ms, longer than the engine's heartbeat timeout (" + engineTimeoutMs
                    + " ms) and its engine-loss grace (" + engineLossGraceMs + " ms): the engine has given up its ranks here");
            if (n > 0) {
                LOG.warn("lost the engine at {} ({} ms without an answer, its heartbeat timeout is {} ms, its engine-loss "
                        + "grace {} ms): aborted {} domain(s) running here", engineUrl, silentMs, engineTimeoutMs,
                        engineLossGraceMs, n);
            }
        } catch (RuntimeException e) {
            LOG.warn("could not abort the domains after losing the engine: {}", e.toString());
        }
    }

    /** Announce again, e.g. after a new service type was deployed. */
    public void reannounce() {
        announced = false;
        timer.execute(this::beat);
    }

    private void beat() {
        pending = false;
        try {
            if (!announced) {
                announce();
            } else {
                // the instance: an entry another process of this host took over answers 404, and this one announces again
                HttpResponse<String> r = post(engineUrl + "/api/registry/hosts/"
                        + URLEncoder.encode(host.hostId(), StandardCharsets.UTF_8) + "/heartbeat",
                        JSON.writeValueAsString(Map.of("instance", instance)));
                if (r.statusCode() == 404) {
                    announced = false;
                    announce();
                } else if (r.statusCode() / 100 != 2) {
                    refused("a heartbeat", r);
                } else {
                    contact();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            warn(EngineReach.unreachable(e, engineUrl));
        }
        if (!pending) {
            Runnable answered = firstAnswer;
            firstAnswer = null;
            if (answered != null) {
                answered.run();
            }
        }
        if (!timer.isShutdown() && !refused) {
            timer.schedule(this::beat, announced ? intervalMs : Math.min(intervalMs, 2_000), TimeUnit.MILLISECONDS);
        }
    }

    /** Announces this host as reachable through the relay at {@code relayAddress} (from the next announcement on). */
    public void relay(String relayAddress) {
        this.relay = relayAddress;
    }

    private void announce() throws Exception {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("hostId", host.hostId());
        a.put("soapUrl", host.baseUrl() + MpiwsNames.SERVICES_PATH.substring(0, MpiwsNames.SERVICES_PATH.length() - 1));
        a.put("binaryAddress", host.binaryAddress());
        a.put("services", host.serviceTypes());
        a.put("capacity", capacity);
        a.put("deployUrl", host.deployUrl());
        a.put("oversubscribe", oversubscribe);
        a.put("site", site);
        a.put("instance", instance);
        if (relay != null) {
            a.put("relay", relay);
        }
        HttpResponse<String> r = post(engineUrl + "/api/registry/hosts", JSON.writeValueAsString(a));
        if (r.statusCode() / 100 != 2) {
            refused("the announcement", r);
            return;
        }
        announced = true;
        announcedOnce = true;
        try {
            JsonNode n = JSON.readTree(r.body());
            if (n.has("heartbeatIntervalMs")) {
                intervalMs = Math.max(500, n.get("heartbeatIntervalMs").asLong());
            }
            if (n.has("heartbeatTimeoutMs")) {
                engineTimeoutMs = Math.max(intervalMs, n.get("heartbeatTimeoutMs").asLong());
            }
            // bounded: a wrong or hostile answer must not keep ranks alive for ever without an engine
            engineLossGraceMs = Math.min(MAX_ENGINE_LOSS_GRACE_MS, Math.max(0, n.path("engineLossGraceMs").asLong(0)));
            // bounded both ways: a relay link's blip must not end ranks, nor a wrong answer keep them for ever
            relayReturnMs = Math.min(MAX_ENGINE_LOSS_GRACE_MS, Math.max(1_000, n.path("relayReturnMs").asLong(DEFAULT_RELAY_RETURN_MS)));
        } catch (Exception ignored) {
            // keep the default interval and timeout
        }
        contact();
        LOG.info("registered with the engine at {} (heartbeat every {} ms)", engineUrl, intervalMs);
        Runnable first = firstAnnounced;
        firstAnnounced = null;
        if (first != null) {
            first.run();
        }
    }

    /** The engine answered: the host is in its registry again (and says so if it had been warning). */
    private void contact() {
        if (problem.over()) {
            LOG.info("the engine at {} answers again", engineUrl);
        }
        outageOver();
        lastContactNanos = System.nanoTime();
    }

    private HttpResponse<String> post(String url, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(CALL_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        b.header("Authorization", credential.authorization());
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * For a host that cannot stop itself (in Tomcat) and keeps asking: a new credential file is read only when it
     * starts again, which the refusal's "a new one" alone does not say.
     */
    static String stillAsking(int status) {
        return status == 401 || status == 409 ? "; this host keeps asking, and reads a new credential file only when it starts"
                + " again (in Tomcat: restart it, or reload the /axis2 application)" : "";
    }

    /**
     * The one line a host that cannot stop itself (in Tomcat) logs when another live process holds its credential: the
     * engine's refusal, that it stops asking, and what to do.
     */
    static String givingUp(String engineUrl, String what, int status, String answer) {
        return "the engine at " + engineUrl + " refused " + what + ": " + refusal(status, answer) + "; this host stops"
                + " registering: it cannot stop its container, so it stays deployed but takes no work (in Tomcat: once"
                + " mended, restart Tomcat or reload the /axis2 application, which reads its credential file again)";
    }

    /**
     * What an engine's refusal means for this host: a 401 is its credential refused, which waiting does not mend; any
     * other status with the engine's words ({@code {"error": …}}), or the answer as it came when it is not the engine's.
     */
    static String refusal(int status, String answer) {
        String body = answer == null ? "" : answer.strip();
        if (status == 401) {
            return "HTTP 401: the engine refuses this host's credential (unknown, revoked or a wrong secret; a new one:"
                    + " mpflc host-token on the engine's machine)";
        }
        String said = EngineReach.errorOf(body);
        if (said != null) {
            return "HTTP " + status + ": " + said;
        }
        return "HTTP " + status + (body.isEmpty() ? "" : " " + body.replaceAll("\\s+", " "))
                + (status == 404 ? " (no engine's registry at this URL: is --engine the engine's URL?)" : "");
    }

    /**
     * A refusal: a 401 (the credential refused) or a 409 (it is a relay's) with the engine's mark
     * ({@link EngineRefusal#refusesCredential()}) ends the beats when someone listens for it, since asking again will
     * not change the answer; anything else is warned about and retried — also a 401 or 409 without the mark, which
     * something between the host and the engine wrote (a proxy or load balancer while it reloads), not the engine.
     */
    private void refused(String what, HttpResponse<String> r) {
        Consumer<String> listener = credentialRefused;
        int status = r.statusCode();
        boolean credential = status == 401 || status == 409;
        boolean engineSaid = mark(r).filter(EngineRefusal::refusesCredential).isPresent();
        if (mark(r).filter(m -> m == EngineRefusal.INSTANCE_PENDING).isPresent()) {
            // another process of this host is registered: a restart takes its place once its beats stop, else refused
            pending = true;
            if (problem.isNews("pending")) {
                LOG.info("waiting for the engine at {}: {}", engineUrl, EngineReach.errorOf(r.body()));
            }
            return;
        }
        if (credential && !engineSaid) {
            warn("HTTP " + status + " to " + what + " without the engine's " + EngineRefusal.HEADER + " mark: something between"
                    + " this host and " + engineUrl + " answered (a proxy or load balancer?), not the engine");
        } else if (credential && listener != null) {
            refused = true;
            listener.accept("the engine at " + engineUrl + " refused " + what + ": " + refusal(status, r.body()));
        } else if (mark(r).filter(m -> m == EngineRefusal.INSTANCE_LIVE).isPresent()) {
            // a host that cannot stop itself (in Tomcat): asking again would be refused at every beat, each refusal on the
            // engine's audit trail, and would take the host's place unannounced once the other process stops
            refused = true;
            LOG.error(givingUp(engineUrl, what, status, r.body()));
        } else {
            warn("engine refused " + what + ": " + refusal(status, r.body()) + stillAsking(status));
        }
    }

    /** The engine's mark on an answer, if any. */
    private static java.util.Optional<EngineRefusal> mark(HttpResponse<String> r) {
        return EngineRefusal.of(r.statusCode(), r.headers().firstValue(EngineRefusal.HEADER).orElse(null));
    }

    /**
     * Says a problem when it is new in this outage, and again while it lasts — after {@link #FIRST_REMINDER_MS}, then at
     * twice the time since the last reminder, at most every hour — with how long it has lasted: a host that never
     * reached its engine (a wrong {@code --engine}) keeps trying, since it may have started before its engine, but must
     * not look healthy after one line, nor fill the log — also when its failures alternate between a few messages (a
     * connect timeout, then a refused connection), each said once per outage, or vary without end (at most
     * {@value #MAX_SAID} said).
     */
    private synchronized void warn(String message) {
        long now = System.nanoTime();
        problem.isNews(message);
        if (saidThisOutage.isEmpty()) {
            problemSinceNanos = now;
            remindGapMs = firstReminderMs;
        }
        if (saidThisOutage.size() < MAX_SAID && saidThisOutage.add(message)) {
            LOG.warn("{} (retrying every few seconds)", message);
            lastSaidNanos = now;
            return;
        }
        if ((now - lastSaidNanos) / 1_000_000 >= remindGapMs) {
            LOG.warn("still {} for {} s{}: {} (retrying every few seconds)", announcedOnce ? "out of touch with the engine"
                    : "not registered with the engine", (now - problemSinceNanos) / 1_000_000_000,
                    announcedOnce ? "" : " since this host started", message);
            lastSaidNanos = now;
            remindGapMs = Math.min(MAX_REMINDER_MS, remindGapMs * 2);
        }
    }

    /** The outage is over: its messages may be said again in the next one. */
    private synchronized void outageOver() {
        saidThisOutage.clear();
    }

    /** The first reminder of a problem that lasts ({@link #warn}), by default one minute after it began. */
    static final long FIRST_REMINDER_MS = Long.getLong("mpfl.host.reminderMs", 60_000);
    /** The longest gap between reminders. */
    static final long MAX_REMINDER_MS = 3_600_000;
    /** The most different messages said in one outage; the rest wait for the reminders. */
    static final int MAX_SAID = 8;
    private final long firstReminderMs = FIRST_REMINDER_MS;
    /** The messages said since the engine last answered. */
    private final java.util.Set<String> saidThisOutage = new java.util.HashSet<>();
    private long problemSinceNanos;
    private long lastSaidNanos;
    private long remindGapMs = FIRST_REMINDER_MS;
    /** Whether the engine ever took this host's announcement. */
    private volatile boolean announcedOnce;

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            // a beat in flight must not announce the host again after it left
            timer.awaitTermination(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (started) {
                // also when an announcement was cut short: the engine may have registered the host
                leave();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("could not leave the engine's registry at {}: {}", engineUrl, e.toString());
        }
    }

    /**
     * Tells the engine that this host stops ({@code DELETE /api/registry/hosts/{hostId}}), best effort
     * and bounded: otherwise the engine keeps placing ranks on and deploying to a closed port until
     * the heartbeat times out.
     */
    private void leave() throws Exception {
        // this process's goodbye only: a process refused because another one of the host lives leaves that one's entry
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(engineUrl + "/api/registry/hosts/"
                + URLEncoder.encode(host.hostId(), StandardCharsets.UTF_8) + "?instance=" + instance))
                .timeout(Duration.ofSeconds(2)).DELETE();
        b.header("Authorization", credential.authorization());
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        announced = false;
        if (r.statusCode() / 100 == 2) {
            LOG.info("left the engine's registry at {}", engineUrl);
        } else {
            LOG.debug("engine answered HTTP {} when this host left its registry", r.statusCode());
        }
    }
}
