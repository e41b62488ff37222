package org.mpfl.compiler.gen;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * DOT to SVG through Graphviz's {@code dot} program ({@code apt-get install graphviz}), found on the
 * {@code PATH} (or given by {@code $MPFL_DOT}). MPFL bundles no renderer: without Graphviz
 * {@link #svg} says how to get it, and the DOT text is still there for any other viewer.
 */
public final class Graphviz {
    /** How long {@code dot} may take for one picture before it is stopped. */
    static final long TIMEOUT_SECONDS = 30;
    /**
     * Renderings at once in this JVM: the engine draws on unauthenticated GETs, and each one is a
     * process, so a burst of requests waits (bounded) here instead of forking without limit.
     */
    private static final java.util.concurrent.Semaphore RENDERERS = new java.util.concurrent.Semaphore(2);

    private Graphviz() {
    }

    /** Graphviz is missing or failed; the message says how to get SVG. */
    public static final class UnavailableException extends IOException {
        private static final long serialVersionUID = 1L;

        public UnavailableException(String message) {
            super(message);
        }
    }

    /** The {@code dot} program to run, or {@code null} when none is installed. */
    public static Path program() {
        String given = org.mpfl.compiler.settings.CompilerSettings.DOT.raw();
        if (given != null && !given.isBlank()) {
            Path p = Path.of(given);
            return Files.isExecutable(p) ? p : null;
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "dot");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Renders DOT text as SVG with {@code dot -Tsvg}; bounded by {@value #TIMEOUT_SECONDS} s. */
    public static String svg(String dot) throws IOException, InterruptedException {
        Path program = program();
        if (program == null) {
            throw new UnavailableException("SVG needs Graphviz's 'dot' program, which is not installed "
                    + "(apt-get install graphviz, or set $MPFL_DOT); write DOT instead (-o FILE.dot) and render it elsewhere");
        }
        if (!RENDERERS.tryAcquire(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new UnavailableException("Graphviz is busy drawing other pictures; try again");
        }
        try {
            return render(program, dot);
        } finally {
            RENDERERS.release();
        }
    }

    private static String render(Path program, String dot) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(program.toString(), "-Tsvg").redirectErrorStream(false).start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
        try (OutputStream in = p.getOutputStream()) {
            in.write(dot.getBytes(StandardCharsets.UTF_8));
        }
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new UnavailableException("Graphviz 'dot' did not finish within " + TIMEOUT_SECONDS + " s");
        }
        if (p.exitValue() != 0) {
            throw new UnavailableException("Graphviz 'dot' failed (exit " + p.exitValue() + "): "
                    + new String(err.join(), StandardCharsets.UTF_8).strip());
        }
        return new String(out.join(), StandardCharsets.UTF_8);
    }

    private static byte[] readAll(InputStream in) {
        try (in; ByteArrayOutputStream b = new ByteArrayOutputStream()) {
            in.transferTo(b);
            return b.toByteArray();
        } catch (IOException e) {
            return new byte[0];
        }
    }
}
