package org.cx.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An append-only audit file: one line per committed completion ({@code taskId appliedNanos committedNanos}),
 * written straight to the operating system so that it survives the process being killed. Event loop only.
 */
final class CommitLog {
    private final FileChannel file;

    CommitLog(Path path) {
        try {
            file = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the commit log " + path + ": " + e.getMessage(), e);
        }
    }

    void append(String line) {
        try {
            file.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the commit log: " + e.getMessage(), e);
        }
    }
}
