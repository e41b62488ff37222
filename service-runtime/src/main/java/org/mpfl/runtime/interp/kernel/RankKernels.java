package org.mpfl.runtime.interp.kernel;

import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;
import org.mpfl.protocol.kernel.PythonWorker;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.runtime.settings.RuntimeSettings;

/**
 * The kernel workers of one rank: one Python worker for all its {@code <compute python>} sites and
 * one worker per {@code <compute command>} executable, started with the rank ({@link #start}, which
 * also imports every Python kernel so that a missing module or function fails the rank at once) and
 * stopped with it ({@link #close}).
 */
public final class RankKernels implements AutoCloseable {
    private static volatile Path script;

    private final KernelLibraries libraries;
    private final OutputPump.Sink log;
    private final Map<String, KernelWorker> workers = new LinkedHashMap<>();

    /**
     * @param log where the workers' stdout (level info) and stderr (level warn) lines go
     */
    public RankKernels(KernelLibraries libraries, LogSink log) {
        this.libraries = libraries;
        this.log = log::line;
    }

    /** Where a worker's output lines go: the rank's log. */
    @FunctionalInterface
    public interface LogSink {
        void line(String level, String text);
    }

    /** Whether any site of {@code sites} needs a worker. */
    public static boolean needed(List<IrActivity.Compute> sites) {
        return sites.stream().anyMatch(c -> c.python() != null || c.command() != null);
    }

    /**
     * Starts the workers {@code sites} need and loads every Python kernel among them ({@code class} sites,
     * Java activities, need none and are passed over).
     *
     * @throws SiteFailure naming the site whose worker or kernel cannot start
     */
    public void start(List<IrActivity.Compute> sites) throws SiteFailure, InterruptedIOException {
        Set<String> loaded = new LinkedHashSet<>();
        for (IrActivity.Compute site : sites) {
            if (site.python() == null && site.command() == null) {
                continue;
            }
            try {
                KernelWorker worker = worker(site);
                if (site.python() != null && loaded.add(site.python())) {
                    String answer = worker.exchange("load " + site.python(), deadline());
                    if (answer.startsWith("error")) {
                        String text = answer.indexOf('\n') < 0 ? answer : answer.substring(answer.indexOf('\n') + 1);
                        throw KernelFailure.workflow("cannot load python kernel " + site.python() + ": " + text.strip());
                    }
                }
            } catch (KernelFailure e) {
                throw new SiteFailure(site, e);
            }
        }
    }

    /** Calls the kernel of {@code site} with {@code inputs}; returns its outputs by name. */
    public Map<String, Object> call(IrActivity.Compute site, Map<String, Object> inputs)
            throws KernelFailure, InterruptedIOException {
        Map<String, MpflType> outputs = new LinkedHashMap<>();
        for (IrTarget out : site.outputs()) {
            outputs.put(out.variable(), out.type());
        }
        KernelWorker worker = worker(site);
        return KernelCall.call(worker, site.python() != null ? site.python() : "-", inputs, outputs);
    }

    private synchronized KernelWorker worker(IrActivity.Compute site) throws KernelFailure, InterruptedIOException {
        String key = site.python() != null ? "python" : "command " + site.command();
        KernelWorker worker = workers.get(key);
        if (worker == null) {
            worker = site.python() != null ? startPython() : startCommand(site.command());
            workers.put(key, worker);
        }
        return worker;
    }

    private KernelWorker startPython() throws KernelFailure, InterruptedIOException {
        String python = ProtocolSettings.KERNEL_PYTHON.get();
        String unusable = unusableInterpreter(python, libraries.workingDirectory());
        if (unusable != null) {
            // said here, once: started anyway, setsid's own "failed to execute" line would come first, as a warning
            throw KernelFailure.workflow("cannot start the python worker (" + python + "): " + unusable + " ("
                    + (ProtocolSettings.KERNEL_PYTHON.given().isPresent()
                    ? "the interpreter given by --python of mpflc run --local, mpflc up or mpflc host, "
                            + ProtocolSettings.KERNEL_PYTHON.name()
                    : "the default interpreter, looked for on PATH; give another with --python PATH") + ")");
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MPFL_KERNEL_PATH", libraries.pythonPathText());
        env.put("PYTHONUNBUFFERED", "1");
        env.put("PYTHONDONTWRITEBYTECODE", "1");
        return KernelWorker.start("the python worker (" + python + ")", List.of(python, "-u", script().toString()), env,
                libraries.workingDirectory(), log, RuntimeSettings.KERNEL_START_TIMEOUT_MS.get(),
                RuntimeSettings.KERNEL_LOG_BYTES_PER_CALL.get());
    }

    private KernelWorker startCommand(String written) throws KernelFailure, InterruptedIOException {
        List<Path> allowed = new ArrayList<>();
        for (String d : RuntimeSettings.KERNEL_COMMAND_DIRS.get().split(File.pathSeparator)) {
            if (!d.isBlank()) {
                allowed.add(Path.of(d));
            }
        }
        Path executable = libraries.command(written, allowed);
        return KernelWorker.start(KernelWorker.COMMAND_LABEL + written, List.of(executable.toString()), Map.of(),
                libraries.workingDirectory(), log, RuntimeSettings.KERNEL_START_TIMEOUT_MS.get(),
                RuntimeSettings.KERNEL_LOG_BYTES_PER_CALL.get());
    }

    /**
     * Why {@code python} cannot be executed — a path (it holds a '/', relative to {@code directory}, where the
     * worker starts) that is missing, not a regular file or not executable, or a bare name found in no directory
     * of {@code PATH} — else null.
     */
    static String unusableInterpreter(String python, Path directory) {
        if (python.isEmpty()) {
            return "no interpreter given";
        }
        if (!python.contains("/")) {
            for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                Path candidate = Path.of(d.isEmpty() ? "." : d).resolve(python);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return null;
                }
            }
            return python + " is not found on PATH (" + System.getenv().getOrDefault("PATH", "") + ")";
        }
        Path path = directory == null ? Path.of(python) : directory.resolve(python);
        if (!Files.exists(path)) {
            return path + ": No such file or directory";
        }
        if (!Files.isRegularFile(path)) {
            return path + " is not a regular file";
        }
        if (!Files.isExecutable(path)) {
            return path + " is not executable (Permission denied)";
        }
        return null;
    }

    private static long deadline() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RuntimeSettings.KERNEL_START_TIMEOUT_MS.get());
    }

    /** Kills every worker at once (the rank is aborting: a running kernel must not hold it up). */
    public synchronized void kill() {
        workers.values().forEach(KernelWorker::kill);
    }

    @Override
    public synchronized void close() {
        workers.values().forEach(KernelWorker::close);
        workers.clear();
    }

    /** The Python side ({@link PythonWorker}), unpacked once per JVM (removed when the JVM exits). */
    static Path script() throws KernelFailure, InterruptedIOException {
        Path s = script;
        if (s != null && Files.isRegularFile(s)) {
            return s;
        }
        synchronized (RankKernels.class) {
            try {
                byte[] text = PythonWorker.script();
                // made, written and recorded for the exit's removal at once: a Ctrl-C meanwhile leaves no directory
                s = WorkerLeftovers.unlessExiting(() -> Files.write(
                        WorkerLeftovers.deleteTreeAtExit(KernelScratch.PYTHON_RUNTIME.create()).resolve(PythonWorker.NAME), text));
                script = s;
                return s;
            } catch (InterruptedIOException e) {
                throw e; // the JVM exits
            } catch (IOException e) {
                throw KernelFailure.workflow("cannot unpack " + PythonWorker.NAME + ": " + e.getMessage());
            }
        }
    }

    /** A worker or kernel of {@code site} that could not start. */
    public static final class SiteFailure extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient IrActivity.Compute site;

        SiteFailure(IrActivity.Compute site, KernelFailure cause) {
            super(cause.getMessage(), cause);
            this.site = site;
        }

        public IrActivity.Compute site() {
            return site;
        }

        public KernelFailure failure() {
            return (KernelFailure) getCause();
        }
    }
}
