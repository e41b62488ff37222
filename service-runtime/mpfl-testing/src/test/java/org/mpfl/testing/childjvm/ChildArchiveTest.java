package org.mpfl.testing.childjvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test JVM that finds another's jars waits for that JVM's training beside its own tests: it gets the archive
 * once the training ended well, nothing when it failed or when the training JVM is gone without a word.
 */
class ChildArchiveTest {
    /** Far above the 200-ms polls, for a loaded machine; only a wrong answer or a hang could exceed it. */
    private static final long BOUND_S = 30;

    @Test
    void anArchiveAlreadyMadeIsThereAtOnce(@TempDir Path base) throws Exception {
        Path archive = Files.writeString(base.resolve(ChildArchive.ARCHIVE_FILE), "archive");
        assertEquals(archive, ChildArchive.awaitTraining(base).getNow(null));
    }

    @Test
    void aTrainingThatEndedWithoutAnArchiveGivesNone(@TempDir Path base) throws Exception {
        Files.writeString(base.resolve(ChildArchive.ENDED_FILE), "");
        CompletableFuture<Path> archive = ChildArchive.awaitTraining(base);
        assertEquals(true, archive.isDone());
        assertNull(archive.get());
    }

    @Test
    void aTrainingWhoseJvmIsGoneGivesNoneInsteadOfWaiting(@TempDir Path base) throws Exception {
        // no end marker, and nobody holds the training lock: its JVM died mid-training
        Files.writeString(base.resolve(ChildArchive.TRAINING_LOCK_FILE), "");
        assertNull(ChildArchive.awaitTraining(base).get(BOUND_S, TimeUnit.SECONDS));
    }

    @Test
    void aTrainingInProgressIsAwaitedUntilItsArchiveArrives(@TempDir Path base) throws Exception {
        CompletableFuture<Path> archive;
        try (FileChannel channel = FileChannel.open(base.resolve(ChildArchive.TRAINING_LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock training = channel.lock()) {
            archive = ChildArchive.awaitTraining(base);
            // the waiter polls every 200 ms; a few polls later, with the lock still held, it still waits
            Thread.sleep(1_000);
            assertFalse(archive.isDone(), "a training in progress is waited for");
            Files.writeString(base.resolve(ChildArchive.ARCHIVE_FILE), "archive");
            Files.writeString(base.resolve(ChildArchive.ENDED_FILE), "");
        }
        assertEquals(base.resolve(ChildArchive.ARCHIVE_FILE), archive.get(BOUND_S, TimeUnit.SECONDS));
    }
}
