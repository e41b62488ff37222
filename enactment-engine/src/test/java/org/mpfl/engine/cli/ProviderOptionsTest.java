package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.EngineConfig;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.UsageException;

/** {@code mpflc up}'s capacity options that are checked before Slurm is asked anything: {@code --poll-interval}. */
class ProviderOptionsTest {
    static final ArgumentSpec SPEC = ArgumentSpec.of("up", "test").with(ProviderOptions::serving);

    static String refused(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        return assertThrows(UsageException.class, () -> ProviderOptions.apply(SPEC.parse(all), new EngineConfig())).getMessage();
    }

    @Test
    void thePollIntervalIsWholeSecondsFrom1To300AndOnlyWithAProvider() throws Exception {
        assertEquals(1, ProviderOptions.pollSeconds(null));
        assertEquals(30, ProviderOptions.pollSeconds("30"));
        String[] slurm = {"--provider", "slurm", "--partition", "debug", "--node-mpflc", "/opt/mpfl/bin/mpflc"};
        for (String bad : List.of("0", "-5", "301")) {
            String said = refused(concat(slurm, "--poll-interval", bad));
            assertTrue(said.contains("--poll-interval must be 1 to 300 seconds") && said.contains("got " + bad), said);
        }
        for (String bad : List.of("1.5", "soon", "")) {
            String said = refused(concat(slurm, "--poll-interval", bad));
            assertTrue(said.contains("--poll-interval: a whole number of seconds (1 to 300), got '" + bad + "'"), said);
        }
        assertTrue(refused("--poll-interval", "5").contains("--poll-interval applies to --provider slurm only"));
    }

    /** The banner states every bound the provider works to, the join timeout included (it was left out when added). */
    @Test
    void theBannerStatesTheJoinTimeout() throws Exception {
        String[] slurm = {"--provider", "slurm", "--partition", "debug", "--node-mpflc", "/opt/mpfl/bin/mpflc"};
        String banner = ProviderOptions.banner(SPEC.parse(List.of(slurm)));
        assertTrue(banner.contains("a job whose host has not joined after 300 s is cancelled"), banner);
        banner = ProviderOptions.banner(SPEC.parse(List.of(concat(slurm, "--join-timeout", "90"))));
        assertTrue(banner.contains("a job whose host has not joined after 90 s is cancelled"), banner);
    }

    private static String[] concat(String[] a, String... b) {
        List<String> out = new ArrayList<>(List.of(a));
        out.addAll(List.of(b));
        return out.toArray(String[]::new);
    }
}
