package org.mpfl.engine.run;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.registry.HostRegistry;

/**
 * The hosts one run must not be placed on again (they failed one of its attempts, were lost under it,
 * or could not be reached to abort its ranks), each with why and the host process (instance) that did
 * it. A host is kept out only while the registry holds that same process: one that comes back as a new
 * process (restarted after a SIGKILL, the next job on the node) lost the run's old ranks with the old
 * one, so it is usable again — as its quarantine ends then ({@link HostRegistry}). Thread-safe.
 */
final class FaultyHosts {
    /** A kept-out host: why, and the instance it concerns ({@code null}: none was known, or it had left the registry). */
    private record Fault(String why, String instance) {
    }

    /**
     * The instance of a host whose process is known to be gone without its instance being known (it was lost while
     * the engine was down): every process of that host the registry holds later is another one.
     */
    static final String GONE = "";

    private final Map<String, Fault> hosts = new LinkedHashMap<>();

    /**
     * Keeps a host out (replacing an earlier reason).
     *
     * @param instance the process that failed ({@code null}: the one the registry holds now, if any)
     */
    synchronized void put(HostRegistry registry, String hostId, String instance, String why) {
        hosts.put(hostId, new Fault(why, instance != null ? instance : registry.host(hostId).map(HostInfo::instance).orElse(null)));
    }

    /** As {@link #put}, unless the host is kept out already. */
    synchronized void putIfAbsent(HostRegistry registry, String hostId, String instance, String why) {
        if (!hosts.containsKey(hostId)) {
            put(registry, hostId, instance, why);
        }
    }

    /**
     * The hosts still kept out, with why: those the registry holds as the process that failed. A host
     * registered now as another instance is dropped (a host that announces no instance is kept out: it
     * cannot be told apart from the process that failed).
     */
    synchronized Map<String, String> active(HostRegistry registry) {
        Map<String, String> out = new LinkedHashMap<>();
        for (var it = hosts.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            Optional<HostInfo> now = registry.host(e.getKey());
            if (now.isPresent() && now.get().instance() != null && !Objects.equals(now.get().instance(), e.getValue().instance())) {
                it.remove();
                continue;
            }
            out.put(e.getKey(), e.getValue().why() + ", kept out of this run until it comes back as a new process");
        }
        return out;
    }

    /** Every host kept out, with why, as recorded (for messages). */
    synchronized Map<String, String> reasons() {
        Map<String, String> out = new LinkedHashMap<>();
        hosts.forEach((h, f) -> out.put(h, f.why()));
        return out;
    }
}
