package org.mpfl.testing.childjvm;

import org.mpfl.ir.files.FileTrees;
import org.mpfl.protocol.digest.Sha256;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The child JVMs' class path of jars only and the class-data sharing archive trained on it, made once per
 * build of a module under its {@code target/child-jvm/FINGERPRINT/}: the fingerprint covers every class
 * path entry (a jar's size and time, each file of a directory), so a rebuilt module gets a new pair and
 * the old one is removed. Test JVMs that start at once (Failsafe's forks) take turns through a file
 * lock: the first makes the pair, the others find it.
 *
 * <p>Why jars: JDK 17 refuses to archive from a class path with a non-empty directory (Failsafe's
 * {@code target/test-classes}), and a JVM maps the archive only when its class path begins with the one
 * the archive was made on; so each directory becomes a jar (uncompressed: made in well under a second),
 * in its place, and the children start on exactly the training's class path.
 *
 * @param classPath the jars-only class path
 * @param archive   the archive, or {@code null} when the training failed (its log is beside it)
 */
record ChildArchive(String classPath, Path archive) {
    /** How long a test JVM waits for another's training before it goes on without the pair (a training is bounded by 3 min). */
    private static final Duration LOCK_WAIT = Duration.ofMinutes(5);
    private static final String CLASS_PATH_FILE = "classpath.txt";
    static final String ARCHIVE_FILE = "children.jsa";

    /** The pair for {@code classPath}, made under {@code directory} unless another test JVM made it already. */
    static ChildArchive prepare(Path directory, String classPath) throws IOException, InterruptedException {
        List<Path> entries = entries(classPath);
        Path base = directory.resolve(fingerprint(entries));
        String jarsOnly = madeOnce(directory, base, () -> {
            String joined = String.join(File.pathSeparator, jarsOnly(base, entries));
            ChildJvmTraining.train(joined, base.resolve(ARCHIVE_FILE), base.resolve("training"));
            return joined;
        });
        Path archive = base.resolve(ARCHIVE_FILE);
        return new ChildArchive(jarsOnly, Files.isRegularFile(archive) ? archive : null);
    }

    /**
     * The pair of another module's build ({@code shared}: its {@code target/child-jvm}) with this class path's
     * entries it lacks appended, or {@code null} when that pair cannot serve this class path: it is not finished,
     * one of its files is gone or newer than its archive, or an entry it lacks could shadow or be shadowed by one of its own — a jar of the
     * local Maven {@code repository} (a library in another version, say) or a jar with the name of one of its jars
     * (a module's jar from elsewhere). A JVM maps the archive when its class path begins with the training's,
     * so the appended entries cost the children nothing but their own classes' loading; the pair's extra
     * entries (the other module's test classes and test libraries) stay unused. Directories are jarred here,
     * under {@code directory}, as in {@link #prepare}.
     */
    static ChildArchive extend(Path shared, Path directory, String classPath, Path repository) throws IOException, InterruptedException {
        Path pair = finishedPair(shared);
        if (pair == null) {
            return null;
        }
        List<String> sharedEntries = List.of(Files.readString(pair.resolve(CLASS_PATH_FILE)).strip().split(File.pathSeparator));
        FileTime trained = Files.getLastModifiedTime(pair.resolve(ARCHIVE_FILE));
        Set<Path> sharedPaths = new HashSet<>();
        Set<String> sharedNames = new HashSet<>();
        for (String e : sharedEntries) {
            Path p = Path.of(e).toAbsolutePath().normalize();
            // a jar rebuilt since the training (that module built again without its full tier): the JVM would ignore
            // the archive without a word
            if (!Files.isRegularFile(p) || Files.getLastModifiedTime(p).compareTo(trained) > 0) {
                return null;
            }
            sharedPaths.add(p);
            sharedNames.add(p.getFileName().toString());
        }
        Path normalisedRepository = repository == null ? null : repository.toAbsolutePath().normalize();
        List<Path> extras = new ArrayList<>();
        for (Path entry : entries(classPath)) {
            Path p = entry.toAbsolutePath().normalize();
            if (sharedPaths.contains(p) || !Files.exists(p)) {
                continue;
            }
            boolean jar = Files.isRegularFile(p);
            if (jar && (sharedNames.contains(p.getFileName().toString())
                    || normalisedRepository != null && p.startsWith(normalisedRepository))) {
                return null;
            }
            extras.add(p);
        }
        Path base = directory.resolve("on-" + pair.getFileName() + "-" + fingerprint(extras));
        String extended = madeOnce(directory, base, () -> {
            List<String> joined = new ArrayList<>(sharedEntries);
            joined.addAll(jarsOnly(base, extras));
            return String.join(File.pathSeparator, joined);
        });
        return new ChildArchive(extended, pair.resolve(ARCHIVE_FILE));
    }

    /** The directory under {@code shared} whose pair is done (its class path written and its archive trained), or {@code null}. */
    private static Path finishedPair(Path shared) throws IOException {
        if (!Files.isDirectory(shared)) {
            return null;
        }
        try (Stream<Path> pairs = Files.list(shared)) {
            return pairs.filter(p -> Files.isRegularFile(p.resolve(CLASS_PATH_FILE)) && Files.isRegularFile(p.resolve(ARCHIVE_FILE)))
                    .findFirst().orElse(null);
        }
    }

    /** What makes a pair's class path (its jars, and the archive when it is trained here). */
    @FunctionalInterface
    private interface ClassPathMaker {
        String make() throws IOException, InterruptedException;
    }

    /**
     * {@code base}'s class path, made by {@code maker} unless another test JVM made it already: test JVMs that start
     * at once (Failsafe's forks) take turns through the directory's lock; the pairs of earlier builds are removed,
     * and the class path is written last (what tells the next JVM the pair is done).
     */
    private static String madeOnce(Path directory, Path base, ClassPathMaker maker) throws IOException, InterruptedException {
        Files.createDirectories(directory);
        try (FileChannel channel = FileChannel.open(directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = lock(channel)) {
            Path classPathFile = base.resolve(CLASS_PATH_FILE);
            if (!Files.isRegularFile(classPathFile)) {
                removeOldPairs(directory);
                writeClassPath(base, maker.make());
            }
            return Files.readString(classPathFile).strip();
        }
    }

    private static void removeOldPairs(Path directory) throws IOException {
        try (Stream<Path> old = Files.list(directory)) {
            for (Path p : old.filter(Files::isDirectory).toList()) {
                FileTrees.deleteQuietly(p);
            }
        }
    }

    /** {@code entries} that exist, each directory replaced by a jar of it made under {@code base/jars}. */
    private static List<String> jarsOnly(Path base, List<Path> entries) throws IOException {
        Path jars = Files.createDirectories(base.resolve("jars"));
        List<String> classPath = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Path entry = entries.get(i);
            if (Files.isDirectory(entry)) {
                Path jar = jars.resolve(i + "-" + entry.getFileName() + ".jar");
                DirectoryJar.write(entry, jar);
                classPath.add(jar.toString());
            } else if (Files.exists(entry)) {
                classPath.add(entry.toString());
            }
        }
        return classPath;
    }

    /** Written last, atomically: what tells the next test JVM that the pair is done. */
    private static void writeClassPath(Path base, String classPath) throws IOException {
        Path written = base.resolve(CLASS_PATH_FILE + ".tmp");
        Files.writeString(written, classPath + "\n");
        Files.move(written, base.resolve(CLASS_PATH_FILE), StandardCopyOption.ATOMIC_MOVE);
    }

    private static List<Path> entries(String classPath) {
        return Stream.of(classPath.split(File.pathSeparator)).filter(e -> !e.isBlank()).map(Path::of).toList();
    }

    /** The lock, waited for in short polls (bounded: {@link FileChannel#lock} would wait forever). */
    private static FileLock lock(FileChannel channel) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
        while (true) {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return lock;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("another test JVM held " + channel + " longer than " + LOCK_WAIT);
            }
            Thread.sleep(100);
        }
    }

    /** A digest of the class path's entries: each one's name, and the size and time of each of its files. */
    static String fingerprint(List<Path> entries) throws IOException {
        StringBuilder text = new StringBuilder();
        for (Path entry : entries) {
            text.append(entry.toAbsolutePath()).append('\n');
            if (Files.isDirectory(entry)) {
                try (Stream<Path> files = Files.walk(entry)) {
                    for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                        describe(text.append(' ').append(entry.relativize(f)), f);
                    }
                }
            } else if (Files.exists(entry)) {
                describe(text, entry);
            }
        }
        return Sha256.hex(text.toString()).substring(0, 16);
    }

    private static void describe(StringBuilder text, Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        text.append(' ').append(a.size()).append(' ').append(a.lastModifiedTime().toMillis()).append('\n');
    }
}
