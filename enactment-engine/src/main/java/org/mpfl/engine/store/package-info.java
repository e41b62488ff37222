/** Persistence of runs, run events and workflows (embedded H2 by default, any JDBC database by configuration). */
package org.mpfl.engine.store;
