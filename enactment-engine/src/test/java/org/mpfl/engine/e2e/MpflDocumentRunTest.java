package org.mpfl.engine.e2e;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.testing.StartsProcesses;

/**
 * {@link DocumentRunCases} on an engine with two service-host child processes
 * ({@code mpflc run DOC --engine URL --json}): compiled, the generated services deployed onto the hosts,
 * every rank interpreted there, across the two hosts.
 */
@StartsProcesses
class MpflDocumentRunTest extends DocumentRunCases {
    static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(dir.resolve("engine"))
                .runSettings(new RunSettings(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofMillis(500), 2, "auto")),
                2, Duration.ofSeconds(90));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    List<String> where() {
        return List.of("--engine", cluster.engine().url(), "--data", cluster.engine().config().dataDir().toString());
    }
}
