package org.mpfl.runtime.p2p;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The transport fixtures the messaging suite runs over. To add one (e.g. SOAP between two
 * service-host processes), implement {@link TransportFixture} and add its constructor to
 * {@link #FACTORIES}; every test of {@link P2PMessagingSuiteTest} then runs over it too.
 * Fixtures are started once per suite class, in order, and closed in {@code @AfterAll}.
 */
public final class TransportFixtures {
    /** Fixture factories, in the order the suite runs them. */
    public static final List<Supplier<TransportFixture>> FACTORIES = new ArrayList<>(List.of(
            InJvmFixture::local,
            InJvmFixture::binary,
            TwoProcessFixture::new,
            // two real service-host processes (Axis2, -Xmx512m), driven through run/status/abort
            ServiceHostFixture::soap,
            ServiceHostFixture::binary));

    private TransportFixtures() {
    }
}
