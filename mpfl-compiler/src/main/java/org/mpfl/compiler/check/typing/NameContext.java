package org.mpfl.compiler.check.typing;

import java.util.Map;
import java.util.Set;
import org.mpfl.ir.diag.SourceLocation;

/**
 * The non-variable names an expression may mention as string arguments: the processes of the
 * workflow ({@code first('P')}), and the communicators usable in the current process
 * ({@code rank('g')}): {@code world}, every process name, and the split/cartesian names the process
 * declares ({@code cartesian} ones separately, since only they have coordinates).
 */
public record NameContext(Set<String> processes, Map<String, SourceLocation> communicators, Set<String> cartesians) {

    /** Params-only contexts (defaults, rank counts): no processes or communicators can be referred to. */
    public static NameContext none() {
        return new NameContext(Set.of(), Map.of(), Set.of());
    }

    public boolean isCommunicator(String name) {
        return name.equals("world") || processes.contains(name) || communicators.containsKey(name);
    }
}
