/** The engine's {@code mpflc} commands: run, up, deploy, status, cancel. */
package org.mpfl.engine.cli;
