package org.mpfl.engine.capacity.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.capacity.CapacityException;
import org.mpfl.engine.capacity.HostJob;
import org.mpfl.engine.capacity.JobStatus;
import org.mpfl.protocol.HostCredential;

/**
 * The Slurm job the engine submits, without a Slurm (SlurmCapacityTest runs it on a real one): the
 * credential is in neither the script nor sbatch's command line, only named in {@code --export}; a
 * value with shell characters stays one word; Slurm's time notation in minutes; states by phase.
 */
class SlurmJobTest {
    static final SlurmSettings SETTINGS = new SlurmSettings("debug", "proj'42", "1:30:00", "/opt/mpfl it's/bin/mpflc", "10.0.0.7",
            List.of("--tls-ca", "/shared/ca.pem"), Path.of("/shared/jobs"), Map.of("SLURM_CONF", "/etc/slurm/slurm.conf"));

    @Test
    void theCredentialIsNamedForExportButWrittenNowhere() {
        HostCredential c = HostCredential.generate("http://login1:8080", "slurm-abc");
        HostJob job = new HostJob("mpfl-slurm-abc", "slurm-abc", c.text(), "http://login1:8080", 4);
        String script = SlurmCommandLine.script(SETTINGS, job);
        List<String> sbatch = SlurmCommandLine.sbatch(SETTINGS, job);
        for (String where : List.of(script, String.join(" ", sbatch), job.toString())) {
            assertFalse(where.contains(c.secret()) || where.contains(c.text()), "no credential in: " + where);
        }
        String export = sbatch.stream().filter(a -> a.startsWith("--export=")).findFirst().orElseThrow()
                .substring("--export=".length());
        assertTrue(export.contains(HostCredential.ENV) && export.contains("SLURM_CONF") && !export.contains("ALL")
                && !export.contains("="), "exported by name only, nothing else of the engine's environment: " + export);
        assertTrue(sbatch.containsAll(List.of("--partition=debug", "--account=proj'42", "--time=1:30:00", "--cpus-per-task=4",
                "--nodes=1", "--job-name=mpfl-slurm-abc", "--output=/shared/jobs/mpfl-slurm-abc.log")), sbatch.toString());
        assertTrue(script.contains("'/opt/mpfl it'\\''s/bin/mpflc'"), "one shell word however it is spelt: " + script);
        assertTrue(script.contains("'--capacity' '4'") && script.contains("'--tls-ca' '/shared/ca.pem'"), script);
    }

    @Test
    void walltimesInMinutesRoundedUp() {
        assertEquals(90, SlurmRest.minutes("1:30:00"));
        assertEquals(30, SlurmRest.minutes("30"));
        assertEquals(2, SlurmRest.minutes("1:01"));
        assertEquals(1440 + 120, SlurmRest.minutes("1-2"));
        assertEquals(1440 + 125, SlurmRest.minutes("1-2:05"));
    }

    @Test
    void slurmStatesByPhase() {
        assertEquals(JobStatus.Phase.PENDING, SlurmScheduler.phase("PENDING"));
        assertEquals(JobStatus.Phase.RUNNING, SlurmScheduler.phase("RUNNING"));
        for (String ended : List.of("CANCELLED", "TIMEOUT", "FAILED", "NODE_FAIL", "COMPLETED", "GONE")) {
            assertEquals(JobStatus.Phase.ENDED, SlurmScheduler.phase(ended), ended);
        }
        // COMPLETING hides the final state (CANCELLED, TIMEOUT…) until the job's processes are gone: not its end yet
        assertEquals(JobStatus.Phase.ENDING, SlurmScheduler.phase("COMPLETING"));
        assertEquals("PENDING (Resources)", new JobStatus("12", JobStatus.Phase.PENDING, "PENDING", "Resources", "").describe());
        assertEquals("RUNNING on n7", new JobStatus("12", JobStatus.Phase.RUNNING, "RUNNING", "None", "n7").describe());
        // a reason that means the job never starts as asked says what to change
        assertEquals("PENDING (PartitionConfig: the partition refuses the job as asked, e.g. more CPUs than its nodes have"
                + " (--cpus-per-node) or a longer --walltime than it allows)",
                new JobStatus("12", JobStatus.Phase.PENDING, "PENDING", "PartitionConfig", "").describe());
    }

    /**
     * What a partition's nodes hold at once: per node its CPUs (capped by MaxCPUsPerNode) over the job's, one job per
     * node on an exclusive partition; and a --walltime beyond the partition's MaxTime is refused, UNLIMITED is none.
     */
    @Test
    void partitionLimits() throws Exception {
        Map<String, Integer> nodes = Map.of("n1", 8, "n2", 8, "n3", 3);
        assertEquals(9, SlurmScheduler.jobsAtOnce("p", nodes, null, false, 2, "sinfo").jobs());
        assertEquals(5, SlurmScheduler.jobsAtOnce("p", nodes, 4, false, 2, "sinfo").jobs());
        assertEquals(3, SlurmScheduler.jobsAtOnce("p", nodes, null, true, 2, "sinfo").jobs());
        assertEquals(4, SlurmScheduler.jobsAtOnce("p", nodes, null, false, 4, "sinfo").jobs());
        assertEquals("partition 'p' has 3 nodes: n1 8 CPUs, n2 8 CPUs, n3 3 CPUs (MaxCPUsPerNode=4) (sinfo), room for at most 5 jobs"
                + " of 2 CPUs at once", SlurmScheduler.jobsAtOnce("p", nodes, 4, false, 2, "sinfo").why());
        assertEquals(null, SlurmScheduler.jobsAtOnce("p", Map.of(), null, false, 2, "sinfo"));

        SlurmSettings hour = new SlurmSettings("p", null, "1:00:00", "mpflc", null, List.of(), Path.of("logs"), Map.of());
        for (String allows : List.of("UNLIMITED", "INFINITE", "1:00:00", "2-00:00:00", "60")) {
            SlurmScheduler.checkWalltime(hour, allows, "scontrol");
        }
        SlurmScheduler.checkWalltime(new SlurmSettings("p", null, null, "mpflc", null, List.of(), Path.of("logs"), Map.of()), "10", "x");
        CapacityException e = assertThrows(CapacityException.class, () -> SlurmScheduler.checkWalltime(hour, "00:30:00", "scontrol"));
        assertEquals("--walltime 1:00:00 is longer than partition 'p' allows (MaxTime=00:30:00, scontrol): every job would pend for"
                + " ever (PartitionTimeLimit); give --walltime 00:30:00 or less, or another --partition", e.getMessage());
    }

    /**
     * Which failures of sbatch leave open whether slurmctld took the job (the engine then looks the job up by its name
     * rather than forget it): no answer within the wait, a reply that timed out or was cut, sbatch killed by a signal;
     * not a controller it never reached, nor an error slurmctld answered with.
     */
    @Test
    void sbatchFailuresThatMayHaveSubmittedTheJob() {
        for (String said : List.of("sbatch did not answer within 30 s (is slurmctld up?)",
                "sbatch --parsable --job-name=mpfl-slurm-a failed (exit 1): sbatch: error: Batch job submission failed: Socket timed out"
                        + " on send/recv operation",
                "sbatch --parsable --job-name=mpfl-slurm-a failed (exit 1): sbatch: error: Batch job submission failed: Zero Bytes were"
                        + " transmitted or received",
                "sbatch --parsable --job-name=mpfl-slurm-a failed (exit 137): ")) {
            assertTrue(SlurmTools.mayHaveReached(said), said);
        }
        for (String said : List.of("sbatch --parsable --job-name=mpfl-slurm-a failed (exit 1): sbatch: error: Batch job submission"
                        + " failed: Unable to contact slurm controller (connect failure)",
                "sbatch --parsable --job-name=mpfl-slurm-a failed (exit 1): sbatch: error: Batch job submission failed: Invalid account",
                "Cannot run program \"sbatch\": error=2, No such file or directory", "")) {
            assertFalse(SlurmTools.mayHaveReached(said), said);
        }
    }

    /** Which failures of Slurm's tools are slurmctld not answering (a look-up is asked again), and which are refusals. */
    @Test
    void aControllerOutOfReachIsTransientARefusalIsNot() {
        for (String said : List.of("squeue did not answer within 30 s (is slurmctld up?)",
                "squeue --noheader --states=all failed (exit 1): slurm_load_jobs error: Unable to contact slurm controller (connect failure)",
                "squeue --noheader --states=all failed (exit 1): slurm_load_jobs error: Socket timed out on send/recv operation")) {
            assertTrue(SlurmTools.noAnswer(said), said);
        }
        for (String said : List.of("Cannot run program \"squeue\": error=2, No such file or directory",
                "squeue --noheader --states=all failed (exit 1): squeue: error: Invalid user: nobody", "")) {
            assertFalse(SlurmTools.noAnswer(said), said);
        }
    }
}
