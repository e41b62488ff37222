package org.mpfl.runtime.host;

import java.io.PrintStream;
import java.util.List;
import org.mpfl.ir.cli.CliCommand;

/** {@code mpflc host …}: runs one service host in this process (see {@link HostMain}). */
public final class HostCommand implements CliCommand {
    @Override
    public String name() {
        return "host";
    }

    @Override
    public String summary() {
        return "[--engine URL --credential-file F] [--port P] [--bind ADDR] [--services DIR] [OPTIONS]  start a service host";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        return HostMain.run(args, out, err);
    }
}
