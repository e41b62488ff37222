package org.mpfl.engine.store;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.mpfl.engine.EngineConfig;

/**
 * {@link RunStoreContract} on a PostgreSQL server started for this class ({@link PostgresServer}), one
 * fresh database per test. Fails (never skips) when the server cannot start.
 */
class PostgresRunStoreTest extends RunStoreContract {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    static PostgresServer server;
    private String url;

    @BeforeAll
    static void startServer() throws Exception {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    EngineConfig storeConfig(EngineConfig config) throws Exception {
        if (url == null) {
            url = server.createDatabase("contract" + DATABASES.incrementAndGet());
        }
        return config.jdbc(url, PostgresServer.USER, server.password());
    }
}
