package org.mpfl.runtime.p2p;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Ranks in this JVM: one host with the local transport, or two hosts (ranks alternating) over the binary channel. */
final class InJvmFixture implements TransportFixture {
    private final String name;
    private final String mode;
    private final InProcessCluster cluster;

    private InJvmFixture(String name, String mode, int hosts) {
        this.name = name;
        this.mode = mode;
        this.cluster = InProcessCluster.start(hosts, MessagingSettings.fromSystemProperties());
    }

    static InJvmFixture local() {
        return new InJvmFixture("local", "local", 1);
    }

    static InJvmFixture binary() {
        return new InJvmFixture("binary-2-hosts-1-jvm", "binary", 2);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Started start(String scenario, int size, Map<String, String> params) {
        int[] hostOf = new int[size];
        for (int r = 0; r < size; r++) {
            hostOf[r] = r % cluster.hostCount();
        }
        InProcessCluster.Run run = cluster.run(hostOf, mode, new HashMap<>(params), P2PScenarios.named(scenario));
        return new Started() {
            @Override
            public String domainId() {
                return run.domainId();
            }

            @Override
            public void abort() {
                run.abort();
            }

            @Override
            public List<Result> await(Duration timeout) {
                List<Result> out = new ArrayList<>();
                for (InProcessCluster.RankResult r : run.await(timeout)) {
                    Map<String, String> outputs = new LinkedHashMap<>();
                    r.outputs().forEach((k, v) -> outputs.put(k, String.valueOf(v)));
                    out.add(new Result(r.rank(), outputs, r.failure() == null ? null
                            : r.failure().getClass().getSimpleName() + ": " + r.failure().getMessage()));
                }
                return out;
            }
        };
    }

    @Override
    public void close() {
        cluster.close();
    }

    @Override
    public String toString() {
        return name;
    }
}
