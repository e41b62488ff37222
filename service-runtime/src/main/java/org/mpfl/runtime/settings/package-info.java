/** The runtime's settings: every system property it reads, declared in one class. */
package org.mpfl.runtime.settings;
