/** The MPFL enactment engine: {@link org.mpfl.engine.Engine} ties registry, runs, store and HTTP together. */
package org.mpfl.engine;
