package org.mpfl.testing.attack;

import java.util.function.Supplier;

/**
 * What a victim rank of the object-payload attacks reports of one value an attacker sent it:
 * {@code ok:<class>} if the receive gave a value, {@code refused:<message>} if the runtime refused it
 * (an {@link IllegalArgumentException}, e.g. a class outside the allow-list). One wording for the
 * runtime's scenario ({@code P2PScenarios.objectVictim}) and the multi-host lab's victim, so that the
 * attack tests on both check the same strings.
 */
public final class ObjectReceipt {
    private ObjectReceipt() {
    }

    /** Runs {@code receive} (a bounded receive of the rank's communicator) and describes what it gave. */
    public static String of(Supplier<Object> receive) {
        try {
            Object v = receive.get();
            return "ok:" + (v == null ? "null" : v.getClass().getName());
        } catch (IllegalArgumentException refused) {
            return "refused:" + refused.getMessage();
        }
    }
}
