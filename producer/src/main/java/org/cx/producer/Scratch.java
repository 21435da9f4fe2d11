package org.cx.producer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Worker scratch directories: the one place task code may write. Emptied between computations. */
final class Scratch {
    private Scratch() {
    }

    /** A new, empty directory for a producer's workers, readable only by this user. */
    static Path createRoot(String producer) {
        try {
            return Files.createTempDirectory("cx-" + producer.replaceAll("[^A-Za-z0-9._-]", "_") + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a scratch directory for task code: " + e.getMessage(), e);
        }
    }

    /** Removes everything inside {@code dir}, keeping {@code dir}; creates it if missing. */
    static void empty(Path dir) {
        empty(dir, null);
    }

    /** Removes everything inside {@code dir} but its child {@code keep} (null: none); creates it if missing. */
    static void empty(Path dir, String keep) {
        try {
            Files.createDirectories(dir);
            try (var children = Files.list(dir)) {
                for (Path child : (Iterable<Path>) children::iterator) {
                    if (!child.getFileName().toString().equals(keep)) {
                        delete(child);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot empty the scratch directory " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Removes {@code path} and everything under it, without following links; quietly if it is gone. */
    static void delete(Path path) {
        try {
            if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + path + ": " + e.getMessage(), e);
        }
    }
}
