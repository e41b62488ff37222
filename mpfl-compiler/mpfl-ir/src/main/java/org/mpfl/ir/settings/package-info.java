/**
 * Settings read from system properties and environment variables: the typed declaration
 * ({@link org.mpfl.ir.settings.Setting}) every component's settings class uses, and the generator of
 * their table in {@code docs/cli.md}. Stands on the JDK alone, so that every module may use it.
 */
package org.mpfl.ir.settings;
