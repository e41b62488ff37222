package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpfl.ir.cli.UsageException;

/** The site of {@code mpflc slurm}'s hosts: {@code --site}, else the Slurm cluster's name, else {@code default}. */
class SlurmSiteTest {
    @Test
    void theSiteIsTheGivenOneElseTheClusterNameElseTheDefault() throws Exception {
        assertEquals("lab", SlurmCommand.site("lab", "cluster1"));
        assertEquals("cluster1", SlurmCommand.site(null, "cluster1"));
        assertEquals("default", SlurmCommand.site(null, null));
        assertEquals("default", SlurmCommand.site(null, " "));
        UsageException given = assertThrows(UsageException.class, () -> SlurmCommand.site("a/b", null));
        assertTrue(given.getMessage().startsWith("--site: bad site name 'a/b'"), given.getMessage());
        UsageException cluster = assertThrows(UsageException.class, () -> SlurmCommand.site(null, "my cluster"));
        assertTrue(cluster.getMessage().startsWith("$SLURM_CLUSTER_NAME (give --site NAME): bad site name"), cluster.getMessage());
    }
}
