/** The compiler's settings: every system property and environment variable it reads, declared in one class. */
package org.mpfl.compiler.settings;
