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
 * A striped file read with one thread per column, each fetching its column's blocks in order into a small queue,
 * while the caller takes the blocks from the queues in file order. Memory: {@link #AHEAD} blocks per column.
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

    StripedRead(FsClient client, String path, Entry entry, Map<String, String> addresses) {
        this.client = client;
        this.path = path;
        this.entry = entry;
        this.addresses = addresses;
    }

    void run(FsClient.BlockSink sink) throws IOException {
        Layout layout = entry.layout();
        int columns = entry.columns().size();
        List<BlockingQueue<Fetched>> queues = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < columns; c++) {
            BlockingQueue<Fetched> q = new ArrayBlockingQueue<>(AHEAD);
            queues.add(q);
            int column = c;
            Thread t = new Thread(() -> fetch(column, q), "cx-fs-stripe-" + c);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        try {
            for (int i = 0; i < layout.blocks(); i++) {
                Fetched f = queues.get(layout.column(i)).poll(5, TimeUnit.MINUTES);
                if (f == null) {
                    throw new FsException(Code.EIO, "reading " + path + ": no block " + i + " in 5 minutes");
                }
                if (f.failure() != null) {
                    throw f.failure();
                }
                sink.block(i, f.data(), f.length());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FsException(Code.EIO, "reading " + path + " was interrupted");
        } finally {
            threads.forEach(Thread::interrupt);
        }
    }

    private void fetch(int column, BlockingQueue<Fetched> queue) {
        try {
            client.readColumn(path, entry, column, addresses, (i, data, n) -> {
                try {
                    queue.put(new Fetched(java.util.Arrays.copyOf(data, n), n, null));
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException("the read was abandoned");
                }
            });
        } catch (java.io.InterruptedIOException e) {
            // the reader stopped taking blocks
        } catch (IOException e) {
            queue.offer(new Fetched(null, 0, e));
        } catch (RuntimeException | Error e) {
            queue.offer(new Fetched(null, 0, new FsException(Code.EIO, "reading column " + column + " of " + path
                    + " failed: " + e, e)));
        }
    }
}
