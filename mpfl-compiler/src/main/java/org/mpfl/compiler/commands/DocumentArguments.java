package org.mpfl.compiler.commands;

import java.nio.file.Path;
import java.util.Map;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.UsageException;

/**
 * What {@code check}, {@code compile} and {@code graph} share on their command line: one document
 * and its {@code --param NAME=VALUE}s (also {@code -p}).
 *
 * @param file        the document
 * @param displayName the document as the user typed it (for diagnostics)
 * @param params      the parameter values as typed (the compiler types them by the declarations)
 */
record DocumentArguments(Path file, String displayName, Map<String, String> params) {

    /** The document and parameter declarations of a compiler command. */
    static ArgumentSpec spec(String command, String summary) {
        return ArgumentSpec.of(command, summary)
                .positional("FILE", "the MPFL document")
                .repeatable("--param", "NAME=VALUE", "a value for a workflow parameter")
                .alias("-p", "--param");
    }

    static DocumentArguments of(Arguments a) throws UsageException {
        String file = a.positional("FILE");
        return new DocumentArguments(Path.of(file), file, a.pairs("--param"));
    }
}
