package org.mpfl.bench;

import java.util.List;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;

/** The options the bench commands share, declared and read once. */
public final class BenchOptions {
    private BenchOptions() {
    }

    /** {@code --json} and {@code --plot FILE.png}: how every benchmark reports. */
    public static ArgumentSpec output(ArgumentSpec spec) {
        return spec.flag("--json", "print one JSON object instead of the table")
                .value("--plot", "FILE.png", "draw the results");
    }

    /** {@code --save FILE.json} and {@code --from FILE.json}: a run kept and shown again. */
    public static ArgumentSpec saved(ArgumentSpec spec) {
        return spec.value("--save", "FILE.json", "also write the JSON to FILE")
                .value("--from", "FILE.json", "show (and plot) a run saved with --save instead of measuring");
    }

    /**
     * What a benchmark measured beside MPJ Express and Open MPI takes after its own options:
     * {@code --scale X}, the peers' options, {@code --host-jvm-arg} (default
     * {@link BenchCommand#DEFAULT_HOST_JVM_ARGS}), {@link #output} and {@link #saved}.
     */
    public static ArgumentSpec measuredAgainstPeers(ArgumentSpec spec) {
        return spec.value("--scale", "X", "1", "iteration scale")
                .with(PeerRuns.Options::declare)
                .with(s -> hostJvmArgs(s, BenchCommand.DEFAULT_HOST_JVM_ARGS))
                .with(BenchOptions::output)
                .with(BenchOptions::saved);
    }

    /** {@code --host-jvm-arg ARG}, repeatable: the benchmark hosts' JVM options instead of {@code defaults}. */
    public static ArgumentSpec hostJvmArgs(ArgumentSpec spec, List<String> defaults) {
        return spec.repeatable("--host-jvm-arg", "ARG", "a JVM option of the benchmark hosts (default "
                + String.join(" ", defaults) + ")");
    }

    /** The {@code --host-jvm-arg} values, else {@code defaults}. */
    public static List<String> hostJvmArgs(Arguments a, List<String> defaults) {
        List<String> given = a.values("--host-jvm-arg");
        return List.copyOf(given.isEmpty() ? defaults : given);
    }
}
