package org.mpfl.protocol.kernel;

import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code mpfl_kernel.py}, the worker that runs a rank's {@code <compute python>} kernels (docs/kernel-protocol.md).
 * The runtime runs it as {@code PYTHON -u mpfl_kernel.py}; {@code mpflc check} runs it as
 * {@code PYTHON mpfl_kernel.py --taken-names} ({@link #TAKEN_NAMES}), which does the worker's own imports and
 * prints, as a JSON array, the top-level module names a kernel module cannot have: the modules loaded by then and
 * those built into the interpreter, which Python finds before any library. {@link #takenNames} asks it, for
 * {@code mpflc check} and for {@code mpflc new python} (which refuses a project named so).
 */
public final class PythonWorker {
    /** The script's file name (tracebacks and process listings show it). */
    public static final String NAME = "mpfl_kernel.py";
    /** The argument with which the script prints the module names it has taken, instead of serving. */
    public static final String TAKEN_NAMES = "--taken-names";

    private PythonWorker() {
    }

    /** The script's text, from this jar. */
    public static byte[] script() throws IOException {
        try (InputStream in = PythonWorker.class.getResourceAsStream(NAME)) {
            if (in == null) {
                throw new IOException(NAME + " is missing from the MPFL protocol jar");
            }
            return in.readAllBytes();
        }
    }

    /**
     * The top-level module names a kernel module cannot have, as this worker says in {@code python}: run as a rank
     * runs it (without {@code -I}), so that the same site-packages answer.
     *
     * @throws IOException when {@code python} cannot give them (its message says why: {@link PythonScript#answer})
     */
    public static Set<String> takenNames(String python) throws IOException {
        Set<String> names = new TreeSet<>();
        PythonScript.answer(python, List.of(), NAME, script(), List.of(TAKEN_NAMES), "listing the modules it imports",
                JsonNodeType.ARRAY).forEach(n -> names.add(n.asText()));
        return names;
    }
}
