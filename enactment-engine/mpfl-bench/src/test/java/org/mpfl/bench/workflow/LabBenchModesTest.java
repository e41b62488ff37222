package org.mpfl.bench.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code bench lab} measures parts A and B, or with {@code --sites} the sites comparison: an option of the
 * other measurement is refused before anything is made, where it was ignored without a word (a walk-through
 * ran the whole of parts A and B with {@code --hosts-per-site 3}, meant for sites).
 */
class LabBenchModesTest {

    @Test
    void anOptionOfSitesWithoutSitesIsRefusedNamingIt() {
        UsageException e = assertThrows(UsageException.class,
                () -> LabBenchCommand.parse(List.of("--hosts-per-site", "3", "--heat2d-size", "64")));
        assertEquals("--hosts-per-site, --heat2d-size: only with --sites N (without it, bench lab measures parts A and B)",
                e.getMessage());
    }

    @Test
    void anOptionOfPartsAAndBWithSitesIsRefusedBeforeAnythingIsMade() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        UsageException e = assertThrows(UsageException.class, () -> new LabBenchCommand().run(
                List.of("--sites", "2", "--ranks", "4"), new PrintStream(new ByteArrayOutputStream()), new PrintStream(err)));
        assertEquals("--ranks: not with --sites (those are options of parts A and B)", e.getMessage());
        assertTrue(err.toString().isEmpty(), "nothing started: " + err);
        // the options both measurements take pass
        LabBenchCommand.refuseOtherModesOptions(LabBenchCommand.SPEC.parse(List.of("--sites", "2", "--rate", "none", "--repeat", "1")));
    }
}
