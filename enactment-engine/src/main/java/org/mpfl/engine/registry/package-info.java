/** Registry of service hosts: announce, heartbeat, expiry, static host files. */
package org.mpfl.engine.registry;
