package org.cx.fs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cx.fs.FsException.Code;

/**
 * A file read with one thread per column, each fetching its column's blocks in order into a small queue, while the
 * caller takes the blocks from the queues in file order and hands them to its sink. A file of one column is read this
 * way too: then the network, the decryption and the checksums run on one thread while the caller writes, where one
 * thread doing all of it was the limit. Memory: {@link #AHEAD} + 2 blocks per column, reused.
 */
final class StripedRead {
    private static final int AHEAD = 4;

    private final FsClient client;
    private final String path;
    private final Entry entry;
    private final Map<String, String> addresses;

    /** A block fetched, or the failure that ended its column. */
    private record Fetched(byte[] data, int length, IOException failure) {
    }

    /** A column's blocks on their way, and the buffers the caller has written and handed back. */
    private record Column(BlockingQueue<Fetched> fetched, BlockingQueue<byte[]> free) {
    }

    StripedRead(FsClient client, String path, Entry entry, Map<String, String> addresses) {
        this.client = client;
        this.path = path;
        this.entry = entry;
        this.addresses = addresses;
    }

    /** Hands every block of the file to {@code sink} in order; the sink may not keep a block's array. */
    void run(FsClient.BlockSink sink) throws IOException {
        Layout layout = entry.layout();
        int columns = entry.columns().size();
        List<Column> queues = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < columns; c++) {
            Column q = new Column(new ArrayBlockingQueue<>(AHEAD), new ArrayBlockingQueue<>(AHEAD + 2));
            for (int b = 0; b < AHEAD + 2; b++) {
                q.free().add(new byte[Blocks.SIZE]);
            }
            queues.add(q);
            int column = c;
            Thread t = new Thread(() -> fetch(column, q), "cx-fs-read-" + c);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        try {
            for (int i = 0; i < layout.blocks(); i++) {
                Column column = queues.get(layout.column(i));
                Fetched f = column.fetched().poll(5, TimeUnit.MINUTES);
                if (f == null) {
                    throw new FsException(Code.EIO, "reading " + path + ": no block " + i + " in 5 minutes");
                }
                if (f.failure() != null) {
                    throw f.failure();
                }
                sink.block(i, f.data(), f.length());
                column.free().add(f.data());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FsException(Code.EIO, "reading " + path + " was interrupted");
        } finally {
            threads.forEach(Thread::interrupt);
        }
    }

    private void fetch(int column, Column queue) {
        try {
            client.readColumn(path, entry, column, addresses, () -> {
                try {
                    return queue.free().take();
                } catch (InterruptedException e) {
                    throw new AbandonedRead();
                }
            }, (i, data, n) -> {
                try {
                    queue.fetched().put(new Fetched(data, n, null));
                } catch (InterruptedException e) {
                    throw new AbandonedRead();
                }
            });
        } catch (AbandonedRead e) {
            // the caller stopped taking blocks
        } catch (IOException e) {
            queue.fetched().offer(new Fetched(null, 0, e));
        } catch (RuntimeException | Error e) {
            queue.fetched().offer(new Fetched(null, 0, new FsException(Code.EIO, "reading column " + column + " of "
                    + path + " failed: " + e, e)));
        }
    }

    /** Thrown into a column's reader when the caller stopped taking its blocks. */
    private static final class AbandonedRead extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AbandonedRead() {
            super("the read was abandoned", null, false, false);
        }
    }
}
