package org.mpfl.compiler.commands;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.cli.UsageException;

/** The words of {@code mpflc check|compile FILE [--param k=v]… [-o DIR] [--bundle-runtime]}. */
record CompilerArguments(Path file, String displayName, Map<String, String> params, Path outputDirectory,
        boolean bundleRuntime) {

    /** The words of {@code check}: a document and {@code --param}s only. */
    static CompilerArguments parse(List<String> args) throws UsageException {
        return parse(args, java.util.Set.of(), null);
    }

    /**
     * The words of {@code compile}: also {@code outputFlags} (the spellings of {@code -o DIR}) and the
     * {@code bundleFlag}. The caller names them, so that each command's own source lists the flags it
     * accepts (docs/cli.md is checked against the sources).
     */
    static CompilerArguments parse(List<String> args, java.util.Set<String> outputFlags, String bundleFlag) throws UsageException {
        String file = null;
        Path output = null;
        boolean bundle = false;
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--param") || arg.equals("-p")) {
                if (i + 1 >= args.size()) {
                    throw new UsageException(arg + " needs NAME=VALUE");
                }
                param(args.get(++i), params);
            } else if (arg.startsWith("--param=")) {
                param(arg.substring("--param=".length()), params);
            } else if (outputFlags.contains(arg)) {
                if (i + 1 >= args.size()) {
                    throw new UsageException(arg + " needs a directory");
                }
                output = Paths.get(args.get(++i));
            } else if (arg.equals(bundleFlag)) {
                bundle = true;
            } else if (arg.startsWith("-") && arg.length() > 1) {
                throw new UsageException("unknown option '" + arg + "'");
            } else if (file != null) {
                throw new UsageException("one document at a time (got '" + file + "' and '" + arg + "')");
            } else {
                file = arg;
            }
        }
        if (file == null) {
            throw new UsageException("no document given");
        }
        return new CompilerArguments(Paths.get(file), file, params, output, bundle);
    }

    private static void param(String text, Map<String, String> params) throws UsageException {
        int equals = text.indexOf('=');
        if (equals <= 0) {
            throw new UsageException("--param needs NAME=VALUE, got '" + text + "'");
        }
        params.put(text.substring(0, equals).trim(), text.substring(equals + 1));
    }
}
