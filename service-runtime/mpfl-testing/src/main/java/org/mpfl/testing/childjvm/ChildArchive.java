package org.mpfl.testing.childjvm;

import org.mpfl.ir.files.FileTrees;
import org.mpfl.protocol.digest.Sha256;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * The child JVMs' class path of jars only and the class-data sharing archive trained on it, made once per
 * build of a module under its {@code target/child-jvm/FINGERPRINT/}: the fingerprint covers every class
 * path entry (a jar's size and time, each file of a directory), so a rebuilt module gets a new pair and
 * the old one is removed. Test JVMs that start at once (Failsafe's forks) take turns through a file
 * lock: the first makes the jars and starts the training, the others find the jars.
 *
 * <p>The training runs beside the tests, not before them: the jars take well under a second, the training
 * ~10 s, during which every fork of a two-core machine would otherwise wait with one core idle. Children
 * started meanwhile start on the same class path without the archive (as they would without any); the
 * {@link #archive()} future completes when the training ended — with the archive, or {@code null} when it
 * failed — in the JVM that trains and in the others alike. The training holds a second lock while it runs,
 * so that another JVM can tell a training in progress from one whose JVM died.
 *
 * <p>Why jars: JDK 17 refuses to archive from a class path with a non-empty directory (Failsafe's
 * {@code target/test-classes}), and a JVM maps the archive only when its class path begins with the one
 * the archive was made on; so each directory becomes a jar (uncompressed: made in well under a second),
 * in its place, and the children start on exactly the training's class path.
 *
 * @param classPath the jars-only class path
 * @param archive   the archive once the training ended, or {@code null} when it failed (its log is beside it)
 */
record ChildArchive(String classPath, CompletableFuture<Path> archive) {
    /** How long a test JVM waits for another's jars before it goes on without the pair. */
    private static final Duration LOCK_WAIT = Duration.ofMinutes(1);
    /** How long a test JVM waits for another's training (which is bounded by 3 min) before it gives up on the archive. */
    private static final Duration TRAINING_WAIT = Duration.ofMinutes(5);
    private static final String CLASS_PATH_FILE = "classpath.txt";
    static final String ARCHIVE_FILE = "children.jsa";
    /** Written when the training ended, well or not: what a waiting JVM looks for. */
    static final String ENDED_FILE = "training.ended";
    /** Held by the training JVM's test JVM while the training runs. */
    static final String TRAINING_LOCK_FILE = "training.lock";

    /** The pair for {@code classPath}, made under {@code directory} unless another test JVM made it or makes it. */
    static ChildArchive prepare(Path directory, String classPath) throws IOException, InterruptedException {
        List<Path> entries = Stream.of(classPath.split(File.pathSeparator)).filter(e -> !e.isBlank()).map(Path::of).toList();
        Path base = directory.resolve(fingerprint(entries));
        Files.createDirectories(directory);
        try (FileChannel channel = FileChannel.open(directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = lock(channel)) {
            Path classPathFile = base.resolve(CLASS_PATH_FILE);
            CompletableFuture<Path> archive;
            if (Files.isRegularFile(classPathFile)) {
                archive = awaitTraining(base);
            } else {
                String joined = makeJars(directory, base, entries);
                archive = startTraining(base, joined);
                Path written = base.resolve(CLASS_PATH_FILE + ".tmp");
                Files.writeString(written, joined + "\n");
                Files.move(written, classPathFile, StandardCopyOption.ATOMIC_MOVE);
            }
            return new ChildArchive(Files.readString(classPathFile).strip(), archive);
        }
    }

    /** Removes other builds' pairs and turns each directory of the class path into a jar; returns the jars-only class path. */
    private static String makeJars(Path directory, Path base, List<Path> entries) throws IOException {
        try (Stream<Path> old = Files.list(directory)) {
            for (Path p : old.filter(Files::isDirectory).toList()) {
                FileTrees.deleteQuietly(p);
            }
        }
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
        return String.join(File.pathSeparator, classPath);
    }

    /**
     * Takes the training lock (before the class path file tells other JVMs the jars are there), then trains
     * on a daemon thread of this JVM and writes the end marker.
     */
    private static CompletableFuture<Path> startTraining(Path base, String classPath) throws IOException {
        FileChannel channel = FileChannel.open(base.resolve(TRAINING_LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock trainingLock = channel.lock();
        CompletableFuture<Path> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            Path archive = base.resolve(ARCHIVE_FILE);
            try (channel; trainingLock) {
                ChildJvmTraining.train(classPath, archive, base.resolve("training"));
                Files.writeString(base.resolve(ENDED_FILE), "");
            } catch (IOException e) {
                System.err.println("child JVMs' archive: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                done.complete(Files.isRegularFile(archive) ? archive : null);
            }
        }, "child-jvm-training");
        t.setDaemon(true);
        t.start();
        return done;
    }

    /**
     * Another JVM made the jars: the archive once its training ended (polled on a daemon thread), at once when it
     * already had; {@code null} when that training failed, its JVM died (the training lock is free but no end
     * marker was written) or it outlasted {@link #TRAINING_WAIT}.
     */
    static CompletableFuture<Path> awaitTraining(Path base) {
        Path archive = base.resolve(ARCHIVE_FILE);
        if (Files.isRegularFile(archive) || Files.isRegularFile(base.resolve(ENDED_FILE))) {
            return CompletableFuture.completedFuture(Files.isRegularFile(archive) ? archive : null);
        }
        CompletableFuture<Path> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            long deadline = System.nanoTime() + TRAINING_WAIT.toNanos();
            try {
                while (!Files.isRegularFile(base.resolve(ENDED_FILE)) && trainerAlive(base) && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
            } catch (IOException e) {
                System.err.println("child JVMs' archive: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                // the archive appears only by an atomic move after a training that ended well
                done.complete(Files.isRegularFile(archive) ? archive : null);
            }
        }, "child-jvm-training-wait");
        t.setDaemon(true);
        t.start();
        return done;
    }

    /** Whether a JVM still holds the training lock (another one: this JVM either trains or waits; its tests hold it). */
    private static boolean trainerAlive(Path base) throws IOException {
        try (FileChannel channel = FileChannel.open(base.resolve(TRAINING_LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock free = channel.tryLock()) {
            return free == null;
        } catch (OverlappingFileLockException heldHere) {
            return true;
        }
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
