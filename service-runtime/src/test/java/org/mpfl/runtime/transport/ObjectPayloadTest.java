package org.mpfl.runtime.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mpfl.runtime.p2p.ObjectValues;
import org.mpfl.testing.attack.gadget.Tripwire;
import org.mpfl.testing.attack.gadget.TripwireMarks;
import org.mpfl.ir.files.FileTrees;

/**
 * {@code object} payloads (type 10) in one JVM: every allowed kind survives the wire form exactly, and
 * everything else — classes outside the allow-list, JDK gadget classes, polymorphic class ids, Java
 * serialisation streams, malformed or absurdly nested JSON — is refused with a clear message, without
 * loading the named class. The same attacks over real processes: {@code ObjectPayloadAttackTest}.
 */
class ObjectPayloadTest {
    /** The scenario programs' allow-list: the package of a (made-up) activity next to {@link ObjectValues}. */
    private static final ObjectTypes VALUES = ObjectTypes.forWorkflow(ObjectPayloadTest.class.getClassLoader(),
            List.of("org.mpfl.runtime.p2p.SomeActivity"));

    /** A class loader that records every class it is asked for. */
    private static final class RecordingLoader extends ClassLoader {
        final Set<String> asked = ConcurrentHashMap.newKeySet();

        RecordingLoader() {
            super(ObjectPayloadTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            asked.add(name);
            return super.loadClass(name, resolve);
        }

        @Override
        public java.util.Enumeration<URL> getResources(String name) {
            return Collections.emptyEnumeration();
        }
    }

    @BeforeEach
    void nothingHappenedYet() {
        assertEquals(TripwireMarks.NONE, TripwireMarks.marks(), "an earlier test set off the tripwire in this JVM");
    }

    private static Object roundTrip(Object value, ObjectTypes types) {
        Payload sent = Payload.ofObject(value, types);
        assertEquals(Payload.Type.OBJECT, sent.type());
        byte[] wire = sent.encode();
        return Payload.decode(Payload.Type.OBJECT, wire, 0, wire.length).value(types);
    }

    private static Object read(String json, ObjectTypes types) {
        return Payload.decode(Payload.Type.OBJECT, json.getBytes(StandardCharsets.UTF_8)).value(types);
    }

    @Test
    void everyAllowedKindSurvivesTheWireExactly() {
        for (Object value : ObjectValues.all()) {
            Object back = roundTrip(value, VALUES);
            assertNull(ObjectValues.difference(value, back), () -> "round trip of " + value);
        }
        assertNull(ObjectValues.difference(ObjectValues.all(), roundTrip(ObjectValues.all(), VALUES)));
    }

    @Test
    void theWireFormIsTaggedJson() {
        byte[] wire = Payload.ofObject(List.of(1, "a", new ObjectValues.Particle(3, new double[] {0.5}, null)), VALUES).encode();
        assertEquals("[\"list\",[[\"int\",1],[\"string\",\"a\"],[\"" + ObjectValues.Particle.class.getName()
                + "\",{\"id\":3,\"position\":[0.5],\"lastReading\":null}]]]", new String(wire, StandardCharsets.UTF_8));
    }

    @Test
    void transientFieldsDoNotTravelAndPrivateConstructorsServeTheCodec() {
        ObjectValues.Particle p = new ObjectValues.Particle(5, new double[] {1}, null);
        ObjectValues.Particle back = (ObjectValues.Particle) roundTrip(p, VALUES);
        assertEquals(p, back);
        // the transient field is what the codec's no-argument constructor made of it, not the sender's
        assertEquals("particle 0", back.label(), "a transient field travelled");
    }

    @Test
    void aClassOutsideTheAllowListIsRefusedByNameBeforeItIsLoaded() {
        RecordingLoader loader = new RecordingLoader();
        ObjectTypes types = ObjectTypes.forWorkflow(loader, List.of("org.mpfl.testing.attack.SomeActivity"));
        String name = Tripwire.class.getName(); // org.mpfl.testing.attack.gadget: a sub-package is not the package
        ObjectTypeRefusedException e = assertThrows(ObjectTypeRefusedException.class,
                () -> read("[\"" + name + "\",{\"command\":\"x\"}]", types));
        assertEquals(name, e.className());
        assertTrue(e.getMessage().contains("names class " + name + ", refused: it is not an allowed object type")
                && e.getMessage().contains("classes in package org.mpfl.testing.attack"), e.getMessage());
        assertFalse(loader.asked.contains(name), "the refused class was loaded");
        assertEquals(TripwireMarks.NONE, TripwireMarks.marks());
    }

    @Test
    void jdkClassesAreNeverNamedEvenTheGadgetRoots() {
        for (String gadget : List.of("java.util.PriorityQueue", "java.lang.Runtime", "java.lang.ProcessBuilder",
                "javax.management.BadAttributeValueExpException", "com.sun.rowset.JdbcRowSetImpl",
                "sun.reflect.annotation.AnnotationInvocationHandler", "jdk.internal.misc.Unsafe", "[Ljava.lang.Object;")) {
            ObjectTypeRefusedException e = assertThrows(ObjectTypeRefusedException.class,
                    () -> read("[\"" + gadget + "\",{\"comparator\":null,\"size\":0}]", VALUES));
            assertEquals(gadget, e.className());
        }
        assertThrows(IllegalArgumentException.class,
                () -> ObjectTypes.forWorkflow(getClass().getClassLoader(), List.of("java.util.Comparator")).resolve(
                        "java.util.PriorityQueue"));
        assertThrows(IllegalArgumentException.class, () -> ObjectTypes.of(PriorityQueue.class));
    }

    @Test
    void theSenderRefusesWhatItsReceiversWould() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Payload.ofObject(new PriorityQueue<>(List.of(2, 1)), VALUES));
        assertTrue(e.getMessage().contains("java.util.PriorityQueue"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Payload.ofObject(List.of(new Object() { }), VALUES));
        assertTrue(e.getMessage().contains("only named, concrete classes"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> Payload.ofObject(new ObjectValues.Particle[] {new ObjectValues.Particle(1, null, null)}, VALUES));
        assertTrue(e.getMessage().contains("use a List"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Payload.ofObject(Map.of("k", new StringBuilder()), VALUES));
    }

    /** An allowed class whose author asked Jackson for class ids from the data. */
    public static final class Polymorphic {
        @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
        public Object payload;
    }

    /** An allowed class with a field declared {@code Object}. */
    public static final class Untyped {
        public Object anything;
    }

    /** An allowed class with a field that Jackson would fill by loading (and initialising) a named class. */
    public static final class ClassHolder {
        public Class<?> type;
    }

    @Test
    void insideAnAllowedClassNoTypeComesFromTheData() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> read("[\""
                + ClassHolder.class.getName() + "\",{\"type\":\"" + Tripwire.class.getName() + "\"}]",
                ObjectTypes.of(ClassHolder.class)));
        assertTrue(refused.getMessage().contains("cannot be read from a message"), refused.getMessage());
        ObjectTypes types = ObjectTypes.of(Polymorphic.class, Untyped.class);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read("[\""
                + Polymorphic.class.getName() + "\",{\"payload\":[\"" + Tripwire.class.getName() + "\",{}]}]", types));
        assertTrue(e.getMessage().contains("PolymorphicTypeValidator"), e.getMessage());
        // a field declared Object gets plain JSON values (a map), never an instance of a named class
        Untyped u = (Untyped) read("[\"" + Untyped.class.getName() + "\",{\"anything\":{\"@class\":\""
                + Tripwire.class.getName() + "\",\"command\":\"x\"}}]", types);
        assertInstanceOf(Map.class, u.anything);
        assertEquals(TripwireMarks.NONE, TripwireMarks.marks());
    }

    @Test
    void aJavaSerialisationStreamIsRefusedUnread() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new ArrayList<>(List.of("x")));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Payload.decode(Payload.Type.OBJECT, bytes.toByteArray()).value(VALUES));
        assertTrue(e.getMessage().contains("Java serialisation stream: refused unread"), e.getMessage());
    }

    @Test
    void malformedAndHostilePayloadsFailWithAClearMessage() {
        for (String bad : List.of("", "{", "[\"int\",1] 2", "[\"int\",\"1\"]", "[\"int\",2147483648]", "[\"list\",{}]",
                "[\"map\",[[1]]]", "[\"char\",\"ab\"]", "[\"double\",\"1e3\"]", "[\"nosuchkind\"]", "[1,2]",
                "[\"byte[]\",[1]]", "[\"" + ObjectValues.Particle.class.getName() + "\",42]",
                "[\"" + ObjectValues.Particle.class.getName() + "\",{\"id\":1,\"unknown\":2}]",
                "[\"list\",[".repeat(100_000))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(bad, VALUES),
                    () -> "accepted " + (bad.length() > 40 ? bad.substring(0, 40) + "…" : bad));
            assertTrue(e.getMessage().startsWith("cannot read object payload") || e instanceof ObjectTypeRefusedException,
                    e.getMessage());
        }
    }

    @Test
    void aReceivedObjectNeedsTheReceiversAllowList() {
        Payload p = Payload.decode(Payload.Type.OBJECT, Payload.ofObject(List.of(1), VALUES).encode());
        assertThrows(IllegalStateException.class, p::value);
        assertEquals(List.of(1), p.value(ObjectTypes.none()));
        assertEquals(List.of(1), p.value());
    }

    @Test
    void listsInLibrariesNameMoreValueClassesButNeverJdkOnes() throws IOException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("object-types");
        try {
            java.nio.file.Path list = dir.resolve(ObjectTypes.LIST_RESOURCE);
            java.nio.file.Files.createDirectories(list.getParent());
            java.nio.file.Files.writeString(list, "# value classes\n" + Tripwire.class.getName() + "\norg.example.model.*\n");
            try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new URL[] {dir.toUri().toURL()},
                    getClass().getClassLoader())) {
                ObjectTypes types = ObjectTypes.forWorkflow(loader, List.of("org.example.activities.Solve"));
                assertTrue(types.allows(Tripwire.class.getName()));
                assertTrue(types.allows("org.example.model.Mesh"));
                assertTrue(types.allows("org.example.activities.State"));
                assertFalse(types.allows("org.example.Other"));
            }
            java.nio.file.Files.writeString(list, "java.util.*\n");
            try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new URL[] {dir.toUri().toURL()},
                    getClass().getClassLoader())) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> ObjectTypes.forWorkflow(loader, List.of()));
                assertTrue(e.getMessage().contains("'java.util.*' cannot be an object type"), e.getMessage());
            }
        } finally {
            FileTrees.deleteQuietly(dir);
        }
    }
}
