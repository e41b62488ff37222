/** The engine's settings: every environment variable it reads, declared in one class. */
package org.mpfl.engine.settings;
