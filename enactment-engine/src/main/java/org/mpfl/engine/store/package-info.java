/**
 * Persistence: one {@link org.mpfl.engine.store.EngineDatabase} (connection, lock, migrations) and one
 * store per aggregate on it: runs and their events, live domains, host credentials, workflow versions
 * (embedded H2 by default, any JDBC database by configuration).
 */
package org.mpfl.engine.store;
