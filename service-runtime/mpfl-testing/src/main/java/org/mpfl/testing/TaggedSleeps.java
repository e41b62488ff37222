package org.mpfl.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code sleep N} processes that code under test starts (a kernel's children, say), found in {@code /proc} by
 * their numbers, which a test draws with {@link #tag}: so that it looks only at its own processes, asserts that
 * none is left ({@link #awaitNone}), and kills what a failing run left ({@link #kill}, for a {@code finally}).
 */
public final class TaggedSleeps {
    /** How many numbers one tag covers: {@code tag} to {@code tag + SPAN - 1}. */
    public static final int SPAN = 10;

    private final long tag;

    private TaggedSleeps(long tag) {
        this.tag = tag;
    }

    /** A fresh tag: numbers (seconds) far longer than any test, random, so no other test's sleeps share them. */
    public static TaggedSleeps tag() {
        return new TaggedSleeps(3_000_000L + SPAN * ThreadLocalRandom.current().nextLong(600_000L));
    }

    /** The first number: a test's processes sleep {@code first()} to {@code first() + SPAN - 1}. */
    public long first() {
        return tag;
    }

    /** The live (not zombie) processes whose command line is {@code sleep N} with N of this tag, as "PID: sleep N". */
    public List<String> live() {
        List<String> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path entry : entries) {
                try {
                    String stat = Files.readString(entry.resolve("stat"), StandardCharsets.ISO_8859_1);
                    if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z")) {
                        continue;
                    }
                    String[] args = Files.readString(entry.resolve("cmdline"), StandardCharsets.ISO_8859_1).split("\0");
                    if (args.length == 2 && args[0].endsWith("sleep") && args[1].matches("[0-9]+")) {
                        long n = Long.parseLong(args[1]);
                        if (n >= tag && n < tag + SPAN) {
                            found.add(entry.getFileName() + ": sleep " + n);
                        }
                    }
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list /proc", e);
        }
        return found;
    }

    /** Waits (at most {@code bound}) until no process of this tag is alive; fails naming those left. */
    public void awaitNone(Duration bound, String what) throws Exception {
        Await.until(bound, what, this::live, List::isEmpty);
    }

    /** Kills every live process of this tag (a test's clean-up: they are the test's own). */
    public void kill() {
        for (String process : live()) {
            long pid = Long.parseLong(process.substring(0, process.indexOf(':')));
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
