package org.mpfl.testing.childjvm;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/** A directory of classes and resources (e.g. {@code target/test-classes}) as a jar with the same entries, uncompressed. */
final class DirectoryJar {
    private DirectoryJar() {
    }

    /** Writes {@code directory}'s files (and its folders, for resource look-ups of a folder) to {@code jar}, whole or not at all. */
    static void write(Path directory, Path jar) throws IOException {
        Path partial = jar.resolveSibling(jar.getFileName() + ".tmp");
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(directory)) {
            paths = walk.filter(p -> !p.equals(directory)).sorted().toList();
        }
        try (OutputStream file = Files.newOutputStream(partial); JarOutputStream out = new JarOutputStream(file)) {
            for (Path p : paths) {
                String name = directory.relativize(p).toString().replace('\\', '/');
                boolean folder = Files.isDirectory(p);
                byte[] bytes = folder ? new byte[0] : Files.readAllBytes(p);
                ZipEntry e = new ZipEntry(folder ? name + "/" : name);
                // stored: the classes are mapped from the archive, so a compressed jar would only cost its writing
                e.setMethod(ZipEntry.STORED);
                e.setSize(bytes.length);
                CRC32 crc = new CRC32();
                crc.update(bytes);
                e.setCrc(crc.getValue());
                out.putNextEntry(e);
                out.write(bytes);
                out.closeEntry();
            }
        }
        Files.move(partial, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
