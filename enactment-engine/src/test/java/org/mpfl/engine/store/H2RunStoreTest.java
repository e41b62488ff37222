package org.mpfl.engine.store;

import org.mpfl.engine.EngineConfig;

/** {@link RunStoreContract} on the default store: the embedded H2 file database in the data directory. */
class H2RunStoreTest extends RunStoreContract {
    @Override
    EngineConfig storeConfig(EngineConfig config) {
        return config;
    }
}
