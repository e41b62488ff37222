package org.mpfl.ir.files;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTreesTest {
    @TempDir
    Path tmp;

    @Test
    void deletesANestedTree() throws IOException {
        Path root = tmp.resolve("root");
        Files.createDirectories(root.resolve("a/b/c"));
        Files.writeString(root.resolve("a/b/c/f.txt"), "x");
        Files.writeString(root.resolve("top.txt"), "y");
        FileTrees.delete(root);
        assertFalse(Files.exists(root));
        assertTrue(Files.isDirectory(tmp), "the parent stays");
    }

    @Test
    void aMissingTreeIsNothingToDo() throws IOException {
        FileTrees.delete(tmp.resolve("never-made"));
        assertTrue(FileTrees.deleteQuietly(tmp.resolve("never-made")));
        assertTrue(FileTrees.deleteQuietly(null));
    }

    @Test
    void aLinkIsDeletedButNotWhatItPointsTo() throws IOException {
        Path users = Files.createDirectories(tmp.resolve("users-services"));
        Files.writeString(users.resolve("keep.aar"), "archive");
        Path root = Files.createDirectories(tmp.resolve("repository"));
        Files.createSymbolicLink(root.resolve("services"), users);
        assertTrue(FileTrees.deleteQuietly(root));
        assertFalse(Files.exists(root));
        assertTrue(Files.isRegularFile(users.resolve("keep.aar")), "the linked directory's content must survive");
    }

    @Test
    void aSingleFileIsDeletedToo() throws IOException {
        Path f = Files.writeString(tmp.resolve("lone.txt"), "z");
        FileTrees.delete(f);
        assertFalse(Files.exists(f));
    }
}
