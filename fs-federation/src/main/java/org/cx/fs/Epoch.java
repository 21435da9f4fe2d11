package org.cx.fs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A name service's epoch, kept in its data directory: 1 for a first primary, and one more than its primary's each
 * time a standby takes over. Callers carry the highest they have seen, so a former primary that hears of a higher
 * one stops answering.
 */
final class Epoch {
    private final Path file;
    private volatile long value;

    Epoch(Path dir) throws IOException {
        this.file = dir.resolve("epoch");
        this.value = Files.exists(file) ? Long.parseLong(Files.readString(file).trim()) : 1;
    }

    long value() {
        return value;
    }

    /** A standby takes its primary's epoch (so that taking over makes one more). */
    void follow(long primary) throws IOException {
        set(primary);
    }

    void set(long next) throws IOException {
        Path tmp = file.resolveSibling("epoch.tmp");
        try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap((next + "\n").getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        NameStore.forceDirectory(file.getParent());
        value = next;
    }
}
