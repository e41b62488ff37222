package org.mpfl.engine.capacity.slurm;

import java.util.List;

/**
 * The one way a Slurm task starts a service host, shared by {@code mpflc slurm} (hosts in an
 * allocation made by hand) and the Slurm capacity provider (hosts in jobs the engine submits): the
 * task runs {@code mpflc host} bound to its node's address, enrolled with either its node's credential
 * file or the credential in its environment ({@code MPFL_HOST_CREDENTIAL}, put there by the job).
 */
public final class SlurmHostStart {
    private SlurmHostStart() {
    }

    /**
     * The per-node host command: {@code $1} mpflc, {@code $2} credentials directory (empty: the credential
     * is in the environment), {@code $3} engine URL, {@code $4} bind address (empty: the address the node's
     * name resolves to), then extra host arguments. Values reach the shell as positional parameters,
     * never as shell text.
     */
    private static final String NODE_SCRIPT = String.join("\n",
            "m=$1; d=$2; e=$3; b=$4; shift 4",
            "n=${SLURMD_NODENAME:-$(hostname -s)}",
            "if [ -z \"$b\" ]; then b=$(getent hosts \"$n\" | awk '{print $1; exit}'); fi",
            "if [ -z \"$b\" ]; then echo \"mpflc: node $n: its name does not resolve; give a bind address\" >&2; exit 2; fi",
            "if [ -n \"$d\" ]; then set -- --credential-file \"$d/$n.credential\" \"$@\"; fi",
            "exec \"$m\" host --engine \"$e\" --bind \"$b\" --port 0 \"$@\"");

    /**
     * The task's command line (for {@code srun}).
     *
     * @param credentials the nodes' credentials directory, or {@code null}: the credential is in the environment
     * @param bind        the hosts' address, or {@code null}: the address each node's name resolves to
     */
    public static List<String> task(String mpflc, String credentials, String engine, String bind) {
        return List.of("/bin/sh", "-c", NODE_SCRIPT, "mpfl-slurm-node", mpflc, credentials == null ? "" : credentials, engine,
                bind == null ? "" : bind);
    }
}
