package org.mpfl.engine.deploy;

import java.util.regex.Pattern;
import org.mpfl.protocol.digest.Sha256;

/**
 * The names services of a workflow are deployed under on the hosts. A host keeps one service per
 * name, so two workflows whose processes share a service type name (both say {@code service="node"})
 * would replace each other's service; the engine therefore deploys the services of a workflow under
 * qualified names:
 * <ul>
 * <li>{@code WORKFLOW.vN.TYPE} for version N of a stored workflow ({@code ring.v3.node});</li>
 * <li>{@code WORKFLOW.hHEX.TYPE} for the archives sent with one run (a document or plan run without
 *     storing it), HEX being the first 12 hex digits of the archive's SHA-256: the same archive keeps
 *     its name, a changed one gets another.</li>
 * </ul>
 * Workflow and service type names are MPFL names ({@code [A-Za-z][A-Za-z0-9_-]*}, no dot), so the
 * first dot ends the workflow name and the qualified name is never ambiguous. Names that are not MPFL
 * names (hand-made plans) are not qualified: their services keep the plain names, as before.
 */
public final class ServiceNames {
    /** An MPFL name (the schema's {@code m:name}). */
    public static final Pattern MPFL_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");
    /** Longest service name the engine deploys (its archive store and the hosts' limit). */
    static final int MAX_LENGTH = 128;

    private ServiceNames() {
    }

    /** Whether services of this workflow and type can be qualified. */
    public static boolean qualifiable(String workflow, String type) {
        return workflow != null && type != null && MPFL_NAME.matcher(workflow).matches() && MPFL_NAME.matcher(type).matches()
                && workflow.length() + type.length() + 24 <= MAX_LENGTH;
    }

    private static final Pattern QUALIFIED = Pattern.compile(MPFL_NAME.pattern() + "\\.(v[0-9]+|h[0-9a-f]{12})\\." + MPFL_NAME.pattern());

    /** Whether {@code service} is a name the engine qualified ({@link #ofVersion}, {@link #ofArchive}), not a plain one. */
    public static boolean qualified(String service) {
        return service != null && QUALIFIED.matcher(service).matches();
    }

    /** The name of service {@code type} of version {@code version} of {@code workflow}, or the plain type. */
    public static String ofVersion(String workflow, int version, String type) {
        return qualifiable(workflow, type) ? workflow + ".v" + version + "." + type : type;
    }

    /** The name of an archive of {@code type} sent with one run of {@code workflow}, or the plain type. */
    public static String ofArchive(String workflow, byte[] archive, String type) {
        return qualifiable(workflow, type) ? workflow + ".h" + Sha256.hex(archive).substring(0, 12) + "." + type : type;
    }
}
