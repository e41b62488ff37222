package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.HostCredential;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * What a host logs when the engine refuses or cannot be reached: a 401 names the host's credential (not the engine's
 * token); an untrusted certificate, a scheme the engine does not speak, or nobody listening, what to do. And when it
 * stops: on the engine's own refusal of its credential (marked {@link EngineRefusal#CREDENTIAL_REFUSED}) only, not on a
 * 401 a proxy in front of the engine wrote (real HTTP on loopback, a real service host).
 */
@Timeout(120)
class EngineAnnouncerRefusalTest {
    @Test
    void a401SaysTheCredentialIsRefusedAndWhereANewOneComesFrom() {
        assertEquals("HTTP 401: the engine refuses this host's credential (unknown, revoked or a wrong secret; a new one:"
                + " mpflc host-token on the engine's machine)", EngineAnnouncer.refusal(401, "{\"error\":\"wrong engine token\"}\n"));
    }

    @Test
    void otherRefusalsCarryTheEnginesAnswerOnOneLine() {
        // the engine's words, not its JSON
        assertEquals("HTTP 409: 'n1' is registered as a relay",
                EngineAnnouncer.refusal(409, "{\"error\":\"'n1' is registered as a relay\"}\n"));
        assertEquals("HTTP 503", EngineAnnouncer.refusal(503, ""));
        // not the engine's answer (a wrong --engine URL: some other web server), on one line, with what to check
        assertEquals("HTTP 404 <html> <body>Not Found</body> </html> (no engine's registry at this URL: is --engine the"
                + " engine's URL?)", EngineAnnouncer.refusal(404, "<html>\n<body>Not Found</body>\n</html>\n"));
    }

    /** A host in Tomcat keeps asking after a refused credential: it says that a new file is read at its next start. */
    @Test
    void aHostThatKeepsAskingSaysWhenANewCredentialIsRead() {
        assertEquals("; this host keeps asking, and reads a new credential file only when it starts again (in Tomcat: restart it,"
                + " or reload the /axis2 application)", EngineAnnouncer.stillAsking(401));
        assertEquals("", EngineAnnouncer.stillAsking(503));
    }

    /**
     * A host that cannot stop itself (in Tomcat: no listener) whose credential another live process holds: the engine
     * first asks it to announce again shortly (503 {@code instance-pending}), then refuses it for good (409
     * {@code instance-live}). It stops asking then — it asked every 2 s for ever, each refusal on the engine's audit
     * trail — and its first answer is that refusal, not the pending one ({@code mpflc host} prints its ready line
     * only after the first answer).
     */
    @Test
    void aHostInTomcatRefusedAsASecondLiveProcessStopsAsking() throws Exception {
        AtomicInteger announcements = new AtomicInteger();
        String refusal = "host 'h1' is already running at http://10.0.0.2:9000/axis2/services (another process with this"
                + " credential, still heartbeating): stop that one first, or give this one a credential of its own (mpflc"
                + " host-token --host-id NEW-ID -o FILE on the engine's machine)";
        HttpServer engine = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        engine.createContext("/api/registry/hosts", ex -> {
            ex.getRequestBody().readAllBytes();
            if (!ex.getRequestMethod().equals("POST")) {
                Http.answer(ex, 204, ""); // the host leaving
            } else if (announcements.incrementAndGet() == 1) {
                ex.getResponseHeaders().add(EngineRefusal.HEADER, EngineRefusal.INSTANCE_PENDING.value());
                Http.answer(ex, 503, "{\"error\":\"host 'h1' is registered by another process: ask again shortly\"}");
            } else {
                ex.getResponseHeaders().add(EngineRefusal.HEADER, EngineRefusal.INSTANCE_LIVE.value());
                Http.answer(ex, 409, "{\"error\":\"" + refusal + "\"}");
            }
        });
        engine.start();
        String url = "http://127.0.0.1:" + engine.getAddress().getPort();
        try (ServiceHost host = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, "h1", null, true))) {
            EngineAnnouncer announcer = new EngineAnnouncer(host, url, HostCredential.generate(url, "h1"), 1);
            List<Integer> answeredAt = new CopyOnWriteArrayList<>();
            announcer.onFirstAnswer(() -> answeredAt.add(announcements.get()));
            try {
                announcer.start();
                Await.until(Duration.ofSeconds(60), () -> "the host gives up (" + announcements.get() + " announcements)",
                        announcer::gaveUp, b -> b);
                assertEquals(2, announcements.get(), "asked again after the pending answer, not after the refusal");
                assertEquals(List.of(2), answeredAt, "the first answer is the refusal, not the pending one");
            } finally {
                announcer.close();
            }
        } finally {
            engine.stop(0);
        }
        assertEquals("the engine at " + url + " refused the announcement: HTTP 409: " + refusal + "; this host stops"
                + " registering: it cannot stop its container, so it stays deployed but takes no work (in Tomcat: once mended,"
                + " restart Tomcat or reload the /axis2 application, which reads its credential file again)",
                EngineAnnouncer.givingUp(url, "the announcement", 409, "{\"error\":\"" + refusal + "\"}"));
    }

    /**
     * A stand-in engine whose first two answers to the announcement are a proxy's 401 (its own page, no mark): the
     * host is not stopped, announces again and registers; once the engine itself refuses the credential (a heartbeat
     * answered 401 with the mark), the host's listener hears it, once.
     */
    @Test
    void onlyTheEnginesMarkedRefusalOfTheCredentialStopsTheHost() throws Exception {
        AtomicInteger announcements = new AtomicInteger();
        AtomicInteger heartbeats = new AtomicInteger();
        AtomicBoolean engineRefuses = new AtomicBoolean();
        HttpServer engine = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        engine.createContext("/api/registry/hosts", ex -> {
            ex.getRequestBody().readAllBytes();
            String path = ex.getRequestURI().getPath();
            if (path.endsWith("/heartbeat")) {
                heartbeats.incrementAndGet();
                if (engineRefuses.get()) {
                    ex.getResponseHeaders().add(EngineRefusal.HEADER, EngineRefusal.CREDENTIAL_REFUSED.value());
                    Http.answer(ex, 401, "{\"error\":\"not a valid host credential (unknown, revoked or wrong secret)\"}");
                } else {
                    Http.answer(ex, 204, "");
                }
            } else if (path.equals("/api/registry/hosts") && announcements.incrementAndGet() <= 2) {
                Http.answer(ex, 401, "<html><body><h1>401 Authorization Required</h1><hr>nginx</body></html>");
            } else if (path.equals("/api/registry/hosts")) {
                Http.answer(ex, 201, "{\"heartbeatIntervalMs\":500,\"heartbeatTimeoutMs\":60000}");
            } else {
                Http.answer(ex, 204, ""); // the host leaving
            }
        });
        engine.start();
        String url = "http://127.0.0.1:" + engine.getAddress().getPort();
        try (ServiceHost host = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, "h1", null, true))) {
            EngineAnnouncer announcer = new EngineAnnouncer(host, url, HostCredential.generate(url, "h1"), 1);
            List<String> told = new CopyOnWriteArrayList<>();
            announcer.onCredentialRefused(told::add);
            try {
                announcer.start();
                Await.until(Duration.ofSeconds(60), () -> "the host registers past the proxy's 401s (" + announcements.get()
                        + " announcements)", heartbeats::get, n -> n >= 1);
                assertEquals(List.of(), told, "a proxy's 401 stopped the host");
                assertEquals(3, announcements.get(), "announced again after each of the proxy's 401s, then registered");
                engineRefuses.set(true);
                Await.until(Duration.ofSeconds(60), "the engine's refusal is heard", told::size, n -> n >= 1);
                assertEquals(1, told.size(), told.toString());
                assertTrue(told.get(0).equals("the engine at " + url + " refused a heartbeat: HTTP 401: the engine refuses this"
                        + " host's credential (unknown, revoked or a wrong secret; a new one: mpflc host-token on the engine's"
                        + " machine)"), told.get(0));
            } finally {
                announcer.close();
            }
        } finally {
            engine.stop(0);
        }
    }
}
