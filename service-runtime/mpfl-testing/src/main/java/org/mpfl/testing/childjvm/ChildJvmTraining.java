package org.mpfl.testing.childjvm;

import org.mpfl.protocol.launch.HostProcesses;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The training run of the children's archive: one JVM on their class path starts what the children start —
 * a service host and, where the engine is on the class path, an engine ({@code mpflc up}) — waits until
 * both printed their ready lines, then (with the engine) runs a small workflow through an engine and a host
 * of its own ({@code mpflc run --local}) and exits normally, dumping every class it loaded
 * ({@code -XX:ArchiveClassesAtExit}; a JVM killed by a signal or halted writes nothing).
 */
public final class ChildJvmTraining {
    /** {@code mpflc}'s entry point, named: this module sits below the engine (as {@code NetworkLab} names it). */
    static final String MPFLC_MAIN_CLASS = "org.mpfl.engine.cli.Mpflc";
    /** The training's own bound: past it, no archive (and the children start as before). */
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    /** The children's own options (NetworkLab, the build's mpfl.host.jvmOptions): C1 only, serial GC. */
    private static final List<String> JVM = ChildJvm.shortLivedOptions(null);

    private ChildJvmTraining() {
    }

    /** Runs the training JVM on {@code classPath}; leaves {@code archive} only when it ended well. */
    static void train(String classPath, Path archive, Path work) throws IOException, InterruptedException {
        Files.createDirectories(work);
        Path partial = archive.resolveSibling(archive.getFileName() + ".tmp");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:ArchiveClassesAtExit=" + partial);
        cmd.add("-Xlog:cds=off,cds+dynamic=off");
        cmd.add(HostProcesses.tempDirectoryOption());
        cmd.addAll(JVM);
        cmd.addAll(List.of("-cp", classPath, ChildJvmTraining.class.getName(), work.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(work.resolve("training.log").toFile()).start();
        if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            System.err.println("child JVMs' archive: the training did not end within " + TIMEOUT + " (log: " + work + ")");
        } else if (p.exitValue() == 0 && Files.isRegularFile(partial)) {
            Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
        } else {
            System.err.println("child JVMs' archive: the training failed (exit " + p.exitValue() + ", log: " + work + ")");
        }
        Files.deleteIfExists(partial);
    }

    /** {@code WORK}: starts a host (and an engine, if present) in this JVM, awaits their ready lines, exits. */
    public static void main(String[] args) throws Exception {
        Path work = Path.of(args[0]);
        ReadyLines ready = new ReadyLines(System.out);
        System.setOut(new PrintStream(ready, true, StandardCharsets.UTF_8));
        List<CompletableFuture<Void>> starts = new ArrayList<>();
        starts.add(ready.awaiting(HostProcesses.READY_PREFIX));
        startMain(HostProcesses.HOST_MAIN_CLASS, "--port", "0");
        if (ChildJvmSession.onClassPath(MPFLC_MAIN_CLASS)) {
            starts.add(ready.awaiting("MPFL engine and console: "));
            startMain(MPFLC_MAIN_CLASS, "up", "--hosts", "0", "--port", "0", "--bind", "127.0.0.1",
                    "--data", Files.createDirectories(work.resolve("engine")).toString());
        }
        int code = 0;
        try {
            CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).get(TIMEOUT.toSeconds() - 60, TimeUnit.SECONDS);
            if (ChildJvmSession.onClassPath(MPFLC_MAIN_CLASS)) {
                code = localRun(work);
            }
        } catch (Exception e) {
            System.err.println("training: not every program got ready: " + e);
            code = 1;
        }
        System.exit(code);
    }

    /**
     * One run of {@code training.mpfl.xml} through an engine and a host of this JVM ({@code --oversubscribe}:
     * through the engine's queue, not as threads of {@code mpflc}), as the children's runs go.
     */
    private static int localRun(Path work) throws Exception {
        Path document = work.resolve("training.mpfl.xml");
        try (var in = ChildJvmTraining.class.getResourceAsStream("training.mpfl.xml")) {
            Files.copy(in, document, StandardCopyOption.REPLACE_EXISTING);
        }
        int code = org.mpfl.ir.cli.Commands.run(List.of("run", document.toString(), "--local", "--oversubscribe",
                "--timeout", "60"), System.out, System.err);
        System.out.println("training: the local run ended with " + code);
        return code;
    }

    /** Runs {@code mainClass}'s main on a daemon thread of its own (the programs serve until the JVM ends). */
    private static void startMain(String mainClass, String... args) throws ReflectiveOperationException {
        Method main = Class.forName(mainClass).getMethod("main", String[].class);
        Thread t = new Thread(() -> {
            try {
                main.invoke(null, (Object) args);
            } catch (ReflectiveOperationException e) {
                System.err.println("training: " + mainClass + " failed: " + e.getCause());
            }
        }, "training-" + mainClass);
        t.setDaemon(true);
        t.start();
    }

    /** Standard output passed through, completing a future per awaited line prefix once such a line appears. */
    private static final class ReadyLines extends OutputStream {
        private final PrintStream through;
        private final ConcurrentHashMap<String, CompletableFuture<Void>> awaited = new ConcurrentHashMap<>();
        private final StringBuilder line = new StringBuilder();

        ReadyLines(PrintStream through) {
            this.through = through;
        }

        CompletableFuture<Void> awaiting(String prefix) {
            return awaited.computeIfAbsent(prefix, p -> new CompletableFuture<>());
        }

        @Override
        public synchronized void write(int b) {
            through.write(b);
            if (b == '\n') {
                String text = line.toString();
                awaited.forEach((prefix, f) -> {
                    if (text.startsWith(prefix)) {
                        f.complete(null);
                    }
                });
                line.setLength(0);
            } else {
                line.append((char) b);
            }
        }

        @Override
        public void flush() {
            through.flush();
        }
    }
}
