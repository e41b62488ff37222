package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mpfl.testing.attack.gadget.Tripwire;
import org.mpfl.testing.attack.gadget.TripwireMarks;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.testing.StartsProcesses;

/**
 * Someone who holds a domain's token (a compromised peer) sends {@code object} payloads that name
 * classes outside the receiver's allow-list, over the wire into a real service-host process: each is
 * refused with a message naming the class, nothing of the named class runs in the receiving JVM (not
 * its static initialiser, constructor, setter or {@code readObject}: {@link Tripwire} marks each in a
 * system property), and the receiving rank goes on to receive an allowed value.
 */
@StartsProcesses
class ObjectPayloadAttackTest {
    private static final List<TransportFixture> FIXTURES = new ArrayList<>();

    static synchronized List<TransportFixture> fixtures() {
        if (FIXTURES.isEmpty()) {
            for (Supplier<TransportFixture> f : List.<Supplier<TransportFixture>>of(ServiceHostFixture::soap,
                    ServiceHostFixture::binary, TwoProcessFixture::new)) {
                FIXTURES.add(f.get());
            }
        }
        return FIXTURES;
    }

    @AfterAll
    static synchronized void close() {
        FIXTURES.forEach(TransportFixture::close);
        FIXTURES.clear();
    }

    private static Payload json(String text) {
        return Payload.decode(Payload.Type.OBJECT, text.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void objectsOutsideTheAllowListAreRefusedUnloadedInTheReceivingProcess(TransportFixture f) throws IOException {
        TransportFixture.Started run = f.start("objectVictim", 2, Map.of("n", "5"));
        // the gadget class itself, with data for its setter
        run.inject(0, 1, 5, 0, json("[\"" + Tripwire.class.getName() + "\",{\"command\":\"touch /tmp/pwned\"}]"));
        // the JDK's classic gadget root: a PriorityQueue whose comparator is chosen by the data
        run.inject(0, 1, 5, 1, json("[\"java.util.PriorityQueue\",{\"comparator\":[\"" + Tripwire.class.getName()
                + "\",{}],\"queue\":[[\"int\",1],[\"int\",2]],\"size\":2}]"));
        // a Java serialisation stream of the gadget (as the old encoding would have read it)
        ByteArrayOutputStream javaStream = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(javaStream)) {
            out.writeObject(new Tripwire());
        }
        run.inject(0, 1, 5, 2, Payload.decode(Payload.Type.OBJECT, javaStream.toByteArray()));
        // nesting deep enough to overflow a naive recursive reader's stack
        run.inject(0, 1, 5, 3, json("[\"list\",[".repeat(50_000)));
        // and then an allowed value: the rank is still fine
        run.inject(0, 1, 5, 4, Payload.ofObject(new ObjectValues.Particle(7, new double[] {1, 2}, null),
                ObjectTypes.of(ObjectValues.Particle.class)));

        List<TransportFixture.Result> results = run.await(Duration.ofSeconds(60));
        TransportFixture.Result victim = results.get(1);
        assertNull(victim.failure(), f.name() + ": the receiving rank failed");
        Map<String, String> out = victim.outputs();
        assertRefused(out.get("m0"), "names class " + Tripwire.class.getName() + ", refused: it is not an allowed object type");
        assertRefused(out.get("m1"), "names class java.util.PriorityQueue, refused");
        assertRefused(out.get("m2"), "Java serialisation stream: refused unread");
        assertRefused(out.get("m3"), "cannot read object payload");
        assertEquals("ok:" + ObjectValues.Particle.class.getName(), out.get("m4"));
        assertTrue(out.get("m0").contains("org.mpfl.runtime.p2p"), "the message says what is allowed: " + out.get("m0"));
        assertEquals(TripwireMarks.NONE, out.get("marks"), f.name() + ": the gadget ran in the receiving process");
    }

    private static void assertRefused(String got, String expected) {
        assertTrue(got != null && got.startsWith("refused:") && got.contains(expected), "expected a refusal with '"
                + expected + "', got " + got);
        assertTrue(got.contains("message from rank 0 with tag 5"), "the refusal names the message: " + got);
    }
}
