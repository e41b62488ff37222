package org.mpfl.engine.capacity.slurm;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the engine's Slurm jobs ask for and how their hosts start.
 *
 * @param partition the partition ({@code --partition})
 * @param account   the account to charge, or {@code null} ({@code --account})
 * @param walltime  the jobs' time limit in Slurm's notation ({@code 1:00:00}), or {@code null}: the partition's default
 * @param mpflc     the {@code mpflc} the nodes run
 * @param bind      the hosts' address, or {@code null}: the address each node's name resolves to
 * @param hostArgs  more arguments for every {@code mpflc host} (TLS flags…)
 * @param logDir    where the jobs' output goes ({@code JOBNAME.log}; on a file system the nodes share)
 * @param toolEnv   more environment for the Slurm tools and the jobs (e.g. {@code SLURM_CONF}); the engine's own
 *                  environment is not passed to jobs, so none of its secrets reach a node
 */
public record SlurmSettings(String partition, String account, String walltime, String mpflc, String bind, List<String> hostArgs,
                            Path logDir, Map<String, String> toolEnv) {
    public SlurmSettings {
        hostArgs = List.copyOf(hostArgs);
        toolEnv = Map.copyOf(toolEnv);
    }
}
