package org.mpfl.compiler.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.zip.ZipFile;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWalk;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.protocol.kernel.PythonScript;
import org.mpfl.protocol.kernel.PythonWorker;

/**
 * Whether the kernels that {@code <compute python>} and {@code <compute command>} name are in the
 * workflow's libraries: a Python module must be a file of a library (else a warning: only the hosts'
 * interpreter could provide it) and a relative {@code command} a file inside a library directory —
 * checked with every compilation ({@link #check}). {@code mpflc check} also looks for each function
 * among the top-level names of its module's file ({@link #pythonFunctions}), found by parsing the file
 * with Python's {@code ast} in an interpreter ({@code --python PATH}, default {@code python3}), never by
 * importing user code, and whether a plain {@code def} takes the {@code in} values as keyword arguments;
 * and whether a module is named as one the worker imports before the libraries, which it could then never
 * load (the worker itself lists them: {@link PythonWorker#takenNames}). Without an interpreter a warning says
 * the functions were not checked. The interpreter has {@link PythonScript#LIMIT_SECONDS} for each answer.
 */
public final class KernelLibraryCheck {
    private static final String SCRIPT = "python_names.py";

    private final Diagnostics diagnostics;
    private final Path documentDirectory;
    private final List<String> libraries;

    KernelLibraryCheck(Diagnostics diagnostics, Path documentDirectory, List<String> libraries) {
        this.diagnostics = diagnostics;
        this.documentDirectory = documentDirectory;
        this.libraries = libraries.stream().filter(l -> !l.endsWith(".jar")).toList();
    }

    /** A module's source: a file, or an entry of a zip ({@code ZIP!ENTRY}). */
    private record Source(String spec, String shown) {
    }

    /** The Python functions of a checked workflow, looked for in their modules' files with {@code python}. */
    public static void pythonFunctions(IrWorkflow workflow, Path documentDirectory, String python, Diagnostics diagnostics) {
        KernelLibraryCheck check = new KernelLibraryCheck(diagnostics, documentDirectory, workflow.libraries());
        Map<IrActivity.Compute, Source> modules = check.modules(workflow.processes(), false);
        if (!modules.isEmpty()) {
            check.functions(modules, python);
        }
    }

    void check(List<IrProcess> processes) {
        modules(processes, true);
    }

    /** The sources of the Python kernels' modules; with {@code report}, what is not in the libraries is reported. */
    private Map<IrActivity.Compute, Source> modules(List<IrProcess> processes, boolean report) {
        Map<IrActivity.Compute, Source> modules = new LinkedHashMap<>();
        if (documentDirectory == null) {
            return modules;
        }
        for (IrProcess p : processes) {
            IrWalk.forEachActivity(p.body(), a -> {
                if (a instanceof IrActivity.Compute c && c.command() != null) {
                    if (report) {
                        command(c);
                    }
                } else if (a instanceof IrActivity.Compute c && c.python() != null) {
                    String module = c.python().substring(0, c.python().indexOf(':'));
                    Source source = find(module);
                    if (source == null && report) {
                        diagnostics.warning(c.at(), "python module '" + module + "' is not in the workflow's libraries"
                                + (libraries.isEmpty() ? " (it has no <library path=\"….py\"/>)" : " (" + String.join(", ", libraries) + ")")
                                + meantModule(module) + ": only the hosts' interpreter could provide it");
                    } else if (source != null) {
                        modules.put(c, source);
                    }
                }
            });
        }
        return modules;
    }

    /**
     * " (did you mean 'heat'?)" for a module the libraries provide that {@code module} most likely meant:
     * its file's name ({@code heat.py}), its last part ({@code kernels.heat}, the library's directory
     * written as a package) or a near spelling ({@code Heat}); else an empty string.
     */
    private String meantModule(String module) {
        Set<String> provided = new java.util.TreeSet<>();
        for (String library : libraries) {
            Path path = documentDirectory.resolve(library);
            if (library.endsWith(".py")) {
                provided.add(moduleName(path));
            } else if (Files.isDirectory(path)) {
                try (java.util.stream.Stream<Path> files = Files.list(path)) {
                    files.filter(f -> f.getFileName().toString().endsWith(".py")).forEach(f -> provided.add(moduleName(f)));
                } catch (IOException e) {
                    // an unreadable directory provides no names to suggest
                }
            }
        }
        provided.remove("__init__");
        String file = module.endsWith(".py") ? module.substring(0, module.length() - ".py".length()) : null;
        String last = module.substring(module.lastIndexOf('.') + 1);
        String meant = file != null && provided.contains(file) ? file : provided.contains(last) ? last : null;
        return meant != null ? " (did you mean '" + meant + "'?)" : org.mpfl.ir.spelling.Suggestions.didYouMean(module, provided);
    }

    private static String moduleName(Path file) {
        String name = file.getFileName().toString();
        return name.substring(0, name.length() - ".py".length());
    }

    private void command(IrActivity.Compute c) {
        String written = c.command();
        if (Path.of(written).isAbsolute()) {
            diagnostics.warning(c.at(), "command " + written + " is outside the workflow's libraries: a host runs it only"
                    + " from a directory it allows (mpflc host --allow-command-dir DIR)");
            return;
        }
        boolean inLibrary = libraries.stream().anyMatch(l -> written.equals(l) || written.startsWith(l.endsWith("/") ? l : l + "/"));
        if (!inLibrary) {
            diagnostics.error(c.at(), "command " + written + " is not inside a <library> of the workflow (name its directory,"
                    + " e.g. <library path=\"bin\"/>, or give an absolute path)");
        } else if (!Files.isRegularFile(documentDirectory.resolve(written))) {
            diagnostics.error(c.at(), "command not found: " + written + " (paths are relative to the document)");
        }
    }

    /** The source of a dotted module name in the libraries, or null. */
    private Source find(String module) {
        String relative = module.replace('.', '/');
        String top = module.contains(".") ? module.substring(0, module.indexOf('.')) : module;
        for (String library : libraries) {
            Path path = documentDirectory.resolve(library);
            if (library.endsWith(".py") && Files.isRegularFile(path)) {
                if (path.getFileName().toString().equals(module + ".py")) {
                    return new Source(path.toString(), library);
                }
            } else if (library.endsWith(".zip") && Files.isRegularFile(path)) {
                try (ZipFile zip = new ZipFile(path.toFile())) {
                    for (String entry : List.of(relative + ".py", relative + "/__init__.py")) {
                        if (zip.getEntry(entry) != null) {
                            return new Source(path + "!" + entry, library + "!" + entry);
                        }
                    }
                } catch (IOException e) {
                    // not a readable zip: the module is then reported as not in the libraries
                }
            } else if (Files.isDirectory(path)) {
                Path root = Files.isRegularFile(path.resolve("__init__.py")) ? path.getParent() : path;
                if (root == path || path.getFileName().toString().equals(top)) {
                    for (String file : List.of(relative + ".py", relative + "/__init__.py")) {
                        if (Files.isRegularFile(root.resolve(file))) {
                            return new Source(root.resolve(file).toString(), documentDirectory.relativize(root.resolve(file)).toString());
                        }
                    }
                }
            }
        }
        return null;
    }

    /** Parses the modules' files in the interpreter and reports functions they do not define. */
    private void functions(Map<IrActivity.Compute, Source> modules, String python) {
        // the worker lists its modules while the files are parsed: two interpreters' start-ups at once, not in turn
        FutureTask<Set<String>> listing = new FutureTask<>(() -> PythonWorker.takenNames(python));
        Thread lister = new Thread(listing, "mpflc-python-modules");
        lister.setDaemon(true);
        lister.start();
        IrActivity.Compute first = modules.keySet().iterator().next();
        JsonNode parsed;
        try {
            parsed = parse(python, modules.values().stream().map(Source::spec).distinct().toList());
        } catch (IOException e) {
            diagnostics.warning(first.at(), "python functions not checked: " + e.getMessage()
                    + " (give the hosts' interpreter: mpflc check --python PATH)");
            try {
                takenNames(listing); // waited for, so that its process has ended when the check does
            } catch (IOException unusable) {
                // the same interpreter: already reported
            }
            return;
        }
        Set<String> taken;
        try {
            taken = takenNames(listing);
        } catch (IOException e) {
            diagnostics.warning(first.at(), "python module names not checked against those the worker imports itself: "
                    + e.getMessage() + " (give the hosts' interpreter: mpflc check --python PATH)");
            taken = Set.of();
        }
        for (Map.Entry<IrActivity.Compute, Source> e : modules.entrySet()) {
            IrActivity.Compute c = e.getKey();
            JsonNode file = parsed.path(e.getValue().spec());
            String module = c.python().substring(0, c.python().indexOf(':'));
            String function = c.python().substring(c.python().indexOf(':') + 1);
            String top = module.contains(".") ? module.substring(0, module.indexOf('.')) : module;
            if (taken.contains(top)) {
                // the run would fail at the rank's start (mpfl_kernel.py, Worker.not_shadowed): said before it
                diagnostics.error(c.at(), "python module '" + top + "' is Python's own or an installed one, not the workflow's "
                        + e.getValue().shown() + ": the worker imports a module of that name (" + python + ") before the"
                        + " workflow's libraries, so the kernel module would never be loaded; rename the kernel module");
            } else if (file.has("error")) {
                diagnostics.error(c.at(), "python module " + e.getValue().shown() + " does not parse: "
                        + file.path("error").asText().replace(documentDirectory + File.separator, ""));
            } else if (!file.path("star").asBoolean()) {
                List<String> names = texts(file.path("names"));
                if (!names.contains(function)) {
                    diagnostics.error(c.at(), "python module " + e.getValue().shown() + " has no function '" + function + "'"
                            + org.mpfl.ir.spelling.Suggestions.didYouMean(function, names));
                } else if (texts(file.path("modules")).contains(function)) {
                    // the worker would find a module there and fail the rank at its start
                    diagnostics.error(c.at(), "python module " + e.getValue().shown() + " has no function '" + function
                            + "': the name is a module it imports");
                } else if (file.path("signatures").has(function)) {
                    parameters(c, function, e.getValue().shown(), file.path("signatures").path(function));
                }
            }
        }
    }

    /**
     * Whether the function can be called as a kernel is, with the {@code in} values as keyword arguments
     * (docs/kernel-protocol.md): every input a parameter of that name (or {@code **kwargs}), every parameter
     * without default an input; else every call would fail with Python's {@code TypeError}.
     */
    private void parameters(IrActivity.Compute c, String function, String module, JsonNode signature) {
        String at = "python function '" + function + "' (" + module + ":" + signature.path("line").asInt() + ")";
        List<String> inputs = c.inputs().stream().map(org.mpfl.ir.IrExpr.Ref::name).toList();
        List<String> keywords = texts(signature.path("keywords"));
        switch (signature.path("kind").asText()) {
            case "async" -> diagnostics.error(c.at(), at + " is an async def: the worker calls a kernel and takes the dict it"
                    + " returns, it never awaits a coroutine");
            case "generator" -> diagnostics.error(c.at(), at + " is a generator (it yields): the worker calls a kernel and"
                    + " takes the dict it returns");
            default -> {
            }
        }
        List<String> positionalOnly = texts(signature.path("positional"));
        for (String positional : positionalOnly) {
            diagnostics.error(c.at(), at + " takes '" + positional + "' by position only, but a kernel gets its inputs"
                    + " by keyword (drop the '/' from its parameters)");
        }
        if (!signature.path("any").asBoolean()) {
            List<String> unknown = inputs.stream().filter(i -> !keywords.contains(i) && !positionalOnly.contains(i)).toList();
            if (keywords.isEmpty() && !unknown.isEmpty()) {
                // no parameter name to correct an input to: the rule itself, once
                JsonNode varargs = signature.path("varargs");
                diagnostics.error(c.at(), at + " takes no keyword arguments ("
                        + (varargs.isTextual() ? "*" + varargs.asText() + " takes values by position only"
                        : positionalOnly.isEmpty() ? "it has no parameters" : "its parameters come before a '/'")
                        + "), but in= gives " + String.join(", ", unknown) + ": a kernel gets its in values as keyword"
                        + " arguments, so declare def " + function + "(" + String.join(", ", inputs) + ") or def " + function
                        + "(**kw)");
            }
            for (String input : keywords.isEmpty() ? List.<String>of() : unknown) { // positional only: said above
                diagnostics.error(c.at(), at + " has no parameter '" + input + "', which in= gives it (its parameters: "
                        + String.join(", ", keywords) + ")" + org.mpfl.ir.spelling.Suggestions.didYouMean(input, keywords));
            }
        }
        for (String required : texts(signature.path("required"))) {
            if (!inputs.contains(required)) {
                diagnostics.error(c.at(), at + " needs '" + required + "', which in= does not give ("
                        + (inputs.isEmpty() ? "there is no in=" : "it gives " + String.join(", ", inputs)) + ")");
            }
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.asText()));
        return texts;
    }

    private static JsonNode parse(String python, List<String> files) throws IOException {
        return PythonScript.answer(python, List.of("-I"), SCRIPT, script(SCRIPT), files, "parsing the kernels", JsonNodeType.OBJECT);
    }

    /** The module names a kernel module cannot have ({@link PythonWorker#takenNames}), once {@code listing} has them. */
    private static Set<String> takenNames(FutureTask<Set<String>> listing) throws IOException {
        try {
            return listing.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(String.valueOf(e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    private static byte[] script(String name) throws IOException {
        try (InputStream in = KernelLibraryCheck.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException(name + " is missing from the compiler jar");
            }
            return in.readAllBytes();
        }
    }
}
