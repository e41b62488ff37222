package org.mpfl.bench;

import org.mpfl.ir.settings.Setting;

/**
 * Every environment variable the benchmarks read (see docs/cli.md, "Settings"; the project directory
 * {@code mpfl.home} is the command frame's {@code CliSettings}), read only through these declarations.
 */
public final class BenchSettings {
    private BenchSettings() {
    }

    public static final Setting<String> PEERS = Setting.environment("MPFL_PEERS", "../shared/peers next to the project",
            "the peers' directory (MPJ Express and Open MPI with their benchmark scripts and stored results)");
}
