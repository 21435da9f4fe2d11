package org.cx.boxed;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cx.api.Task;
import org.cx.api.TaskContext;

/**
 * Tasks for the worker process tests, outside the {@code org.cx.producer} package (whose classes never come from the
 * wire): what honest and hostile task code does.
 */
public final class BoxedTasks {
    private BoxedTasks() {
    }

    /** Sends its input's square to the consumer. */
    public static final class Square extends Task {
        final int x;

        public Square(int x) {
            this.x = x;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(x * x);
        }
    }

    /** Ends its process. */
    public static final class Exit extends Task {
        @Override
        public void execute(TaskContext context) {
            System.out.println("exiting on purpose"); // to standard error, which the producer logs
            System.exit(3);
        }
    }

    /** Loops without end. */
    public static final class Spin extends Task {
        public static volatile long spins;

        @Override
        public void execute(TaskContext context) {
            while (true) {
                spins++;
            }
        }
    }

    /** Allocates without limit. */
    public static final class Hog extends Task {
        @Override
        public void execute(TaskContext context) {
            List<long[]> held = new ArrayList<>();
            while (true) {
                held.add(new long[1 << 20]);
            }
        }
    }

    /** Counts the tasks of its kind its process has run. */
    public static final class Count extends Task {
        static int count;

        @Override
        public void execute(TaskContext context) {
            context.sendResult(++count);
        }
    }

    /** Tries what a hostile task would, and reports what happened. */
    public static final class Probe extends Task {
        final String secret;
        final String outside;
        final int port;

        public Probe(String secret, String outside, int port) {
            this.secret = secret;
            this.outside = outside;
            this.port = port;
        }

        @Override
        public void execute(TaskContext context) {
            StringBuilder r = new StringBuilder();
            r.append("secret=").append(attempt(() -> Files.readString(Path.of(secret))));
            r.append(" write=").append(attempt(() -> Files.writeString(Path.of(outside), "x").toString()));
            r.append(" scratch=").append(attempt(() -> Files.writeString(Path.of("here.txt"), "x").toString()));
            r.append(" connect=").append(attempt(() -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                    return "connected";
                }
            }));
            context.sendResult(r.toString());
        }

        interface Attempt {
            String run() throws Exception;
        }

        private static String attempt(Attempt a) {
            try {
                return "ok:" + a.run();
            } catch (Exception e) {
                return "refused:" + e.getClass().getSimpleName();
            }
        }
    }

    /**
     * Writes a forged answer on its process's output, claiming a child it stored and keeping copies, before the
     * real one: the producer takes the effects only, and does not take the real answer for the next task's.
     */
    public static final class Forger extends Task {
        @Override
        public void execute(TaskContext context) {
            org.cx.api.TaskId child = context.storeTask(new Square(3), org.cx.api.Continuation.CONSUMER);
            org.cx.wire.TaskEnvelope forged = new org.cx.wire.TaskEnvelope(child, org.cx.api.Continuation.CONSUMER,
                    0, 0, false, new byte[0]);
            try {
                org.cx.wire.MessageStreams out = new org.cx.wire.MessageStreams(java.io.InputStream.nullInputStream(),
                        new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 20);
                out.write(new org.cx.wire.Message.Completed(new org.cx.wire.Completion[] {new org.cx.wire.Completion(
                        context.id(), new org.cx.wire.TaskEnvelope[] {forged}, new org.cx.wire.ValueEnvelope[0], 0, 0, 0,
                        -1, true)}));
                out.flush();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /** Stores {@code n} tasks of {@code bytes} bytes each, in one run. */
    public static final class Spawner extends Task {
        final int n;
        final int bytes;

        public Spawner(int n, int bytes) {
            this.n = n;
            this.bytes = bytes;
        }

        @Override
        public void execute(TaskContext context) {
            for (int i = 0; i < n; i++) {
                context.storeTask(new Payload(new byte[bytes]), org.cx.api.Continuation.CONSUMER);
            }
        }
    }

    /** A task that carries bytes in its field. */
    public static final class Payload extends Task {
        final byte[] data;

        public Payload(byte[] data) {
            this.data = data;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(data.length);
        }
    }

    /** Sends a value of {@code bytes} bytes. */
    public static final class Big extends Task {
        final int bytes;

        public Big(int bytes) {
            this.bytes = bytes;
        }

        @Override
        public void execute(TaskContext context) {
            context.sendResult(new byte[bytes]);
        }
    }
}
