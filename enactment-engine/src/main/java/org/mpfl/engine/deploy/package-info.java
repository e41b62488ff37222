/** Service archives ({@code .aar}) kept by the engine and installed on service hosts. */
package org.mpfl.engine.deploy;
