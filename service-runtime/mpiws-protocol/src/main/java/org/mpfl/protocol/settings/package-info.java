/** The protocol's settings: every system property and environment variable it reads, declared in one class. */
package org.mpfl.protocol.settings;
