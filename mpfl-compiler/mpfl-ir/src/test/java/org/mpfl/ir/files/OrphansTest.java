package org.mpfl.ir.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a killed JVM left (named with its PID, no process has it now) is removed, files and whole directories;
 * a live JVM's entries, entries named otherwise and what a link points to stay.
 */
class OrphansTest {
    private static final Pattern NAMED = Pattern.compile("mpfl-x-.+-pid(\\d+)-\\d+");
    /** Above Linux's largest pid_max (4194304): no process has it. */
    private static final String GONE = "999999999";

    @Test
    void theEntriesOfAGoneJvmAreRemovedTheRestStays(@TempDir Path tmp) throws Exception {
        Path orphanDir = Files.createDirectories(tmp.resolve("mpfl-x-h1-pid" + GONE + "-12").resolve("services"));
        Files.writeString(orphanDir.resolve("ring.aar"), "archive");
        Path orphanFile = Files.writeString(tmp.resolve("mpfl-x-h2-pid" + GONE + "-34"), "file");
        Path live = Files.createDirectory(tmp.resolve(Orphans.named("mpfl-x-h3-pid") + "56"));
        Path unnamed = Files.createDirectory(tmp.resolve("mpfl-x-h4-78")); // no PID in its name: whose, nobody can tell
        Path target = Files.createDirectory(tmp.resolve("users-own"));
        Files.writeString(target.resolve("data"), "keep");
        Path link = Files.createSymbolicLink(tmp.resolve("mpfl-x-h5-pid" + GONE + "-90"), target);

        assertEquals(3, Orphans.sweep(tmp, "mpfl-x-*", NAMED));

        assertFalse(Files.exists(orphanDir.getParent()), "the gone JVM's directory and what is in it");
        assertFalse(Files.exists(orphanFile), "the gone JVM's file");
        assertFalse(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS), "a link is removed as a link");
        assertEquals("keep", Files.readString(target.resolve("data")), "what the link pointed to stays");
        assertTrue(Files.isDirectory(live) && Files.isDirectory(unnamed), "a live JVM's and an unnamed one stay");
    }

    @Test
    void aDirectoryThatCannotBeListedIsLeftAsItWas(@TempDir Path tmp) {
        assertEquals(0, Orphans.sweep(tmp.resolve("absent"), "mpfl-x-*", NAMED));
    }
}
