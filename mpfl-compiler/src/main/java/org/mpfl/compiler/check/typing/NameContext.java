package org.mpfl.compiler.check.typing;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
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

    /**
     * The error for an empty communicator name ({@code comm=""}, {@code size('')}): no name to correct, so it
     * says what names a communicator, and which ones there are.
     */
    public String emptyCommunicator() {
        Set<String> all = new TreeSet<>(processes);
        all.add("world");
        all.addAll(communicators.keySet());
        return "empty communicator name: a communicator is 'world', a process's name or one made by <split>/<cartesian>"
                + " (here: " + all.stream().map(n -> "'" + n + "'").collect(Collectors.joining(", ")) + ")";
    }
}
