package org.cx.producer;

import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cx.fs.FsClient;
import org.cx.fs.FsException;
import org.cx.fs.nio.CxFileSystemProvider;
import org.cx.wire.BodyCodecs;
import org.cx.wire.BundleAssembly;
import org.cx.wire.CodeBundle;
import org.cx.wire.Completion;
import org.cx.wire.Message;
import org.cx.wire.MessageStreams;
import org.cx.wire.Sources;
import org.cx.wire.ReadyTask;
import org.cx.wire.TaskHost;
import org.cx.wire.TaskRunner;
import org.cx.wire.PeerValues;
import org.cx.wire.ValueStore;

/**
 * A worker process: the only place a producer decodes and runs task code (with {@link TaskBox} isolation other than
 * in-process). It speaks {@link Message}s with its producer over its standard input and output, one task at a time:
 *
 * <ul>
 *   <li>{@code Code(computation, bundle)}, followed by the bundle's chunks unless this process has it: the
 *       computation's tasks decode against that bundle (the producer has checked its signature).</li>
 *   <li>{@code Assign} of one task: it runs, and the answer is {@code Completed} with its effects or
 *       {@code TaskFailed} with the reason.</li>
 *   <li>{@code ComputationEnded}: its code may go.</li>
 * </ul>
 *
 * Task code's own {@code System.out} goes to standard error, which the producer logs; the protocol's streams are
 * taken before any task code runs. The process ends when its standard input does.
 *
 * <p>Arguments: the host speed ({@link org.cx.api.TaskContext#hostSpeed()}) and the frame limit in bytes.
 */
public final class WorkerMain {
    /** The system property naming the Unix socket of the producer's file service relay for this worker. */
    static final String FS_RELAY = "cx.fs.relay";
    /** The system property naming the file service's name services, as the relay knows them. */
    static final String FS_NAMES = "cx.fs.names";
    /** The child of its scratch directory where a worker keeps large values; kept between computations. */
    static final String VALUES_DIRECTORY = ".cx-values";
    private final MessageStreams streams;
    private final double speed;
    private final int maxMessageBytes;
    /** A worker's heap is small: it keeps few bundles beyond those in use (the producer keeps them all). */
    private final ValueStore values = new ValueStore(Path.of(System.getProperty("java.io.tmpdir"), VALUES_DIRECTORY));
    private final BodyCodecs codecs = new BodyCodecs(WorkerMain.class.getClassLoader(), 64L << 20, values);
    /** The producer's side of large values: those it holds, and those arriving from it. */
    private final PeerValues producerValues = new PeerValues(values, true);
    /** What waits for each bundle whose chunks are arriving: computations to bind to it, as code or as data. */
    private final Map<String, List<java.util.function.Consumer<CodeBundle>>> awaiting = new HashMap<>();
    private final Map<String, BundleAssembly> assemblies = new HashMap<>();

    /** The file service through the producer's relay, once a task asked for it (one owner's: the process's). */
    private FileSystem files;

    private WorkerMain(MessageStreams streams, double speed, int maxMessageBytes) {
        this.streams = streams;
        this.speed = speed;
        this.maxMessageBytes = maxMessageBytes;
    }

    /** The file service, or null if the producer gave this worker none. */
    private FileSystem files(long computation) {
        String relay = System.getProperty(FS_RELAY);
        String names = System.getProperty(FS_NAMES);
        if (relay == null || names == null) {
            return null;
        }
        if (files == null || !files.isOpen()) {
            try {
                files = CxFileSystemProvider.over(names, FsClient.viaRelay(names, Path.of(relay)));
            } catch (FsException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    public static void main(String[] args) throws IOException {
        var protocolOut = new FileOutputStream(FileDescriptor.out);
        var protocolIn = new FileInputStream(FileDescriptor.in);
        System.setOut(System.err);
        System.setIn(InputStream.nullInputStream());
        if (args.length != 2) {
            System.err.println("usage: WorkerMain HOST_SPEED MAX_MESSAGE_BYTES (started by a CX producer)");
            System.exit(2);
        }
        int maxMessage = Integer.parseInt(args[1]);
        new WorkerMain(new MessageStreams(protocolIn, protocolOut, maxMessage), Double.parseDouble(args[0]), maxMessage)
                .serve();
    }

    private void serve() throws IOException {
        while (true) {
            Message m;
            try {
                m = streams.read();
            } catch (EOFException e) {
                return; // the producer is gone or let this worker go
            }
            if (producerValues.received(m)) {
                continue; // a chunk of a large value, ahead of the task that reads it
            }
            switch (m) {
                case Message.Code c -> code(c.computation(), c.bundle());
                case Message.BundleChunk chunk -> chunk(chunk);
                case Message.ComputationEnded e -> {
                    codecs.remove(e.computation());
                    values.drop(e.computation());
                }
                case Message.Assign a -> {
                    for (ReadyTask t : a.tasks()) {
                        answer(t);
                    }
                    streams.flush();
                }
                default -> System.err.println("worker: ignoring an unexpected " + m.getClass().getSimpleName());
            }
        }
    }

    /** Binds {@code computation} to its code and shared data, or waits for the chunks of those not here yet. */
    private void code(long computation, String sources) {
        String code = Sources.code(sources);
        String data = Sources.data(sources);
        if (!codecs.bind(computation, code)) {
            awaiting.computeIfAbsent(code, h -> new ArrayList<>()).add(b -> codecs.bind(computation, b));
        }
        if (!codecs.bindData(computation, data)) {
            awaiting.computeIfAbsent(data, h -> new ArrayList<>()).add(b -> {
                codecs.add(b);
                codecs.bindData(computation, b.hash());
            });
        }
    }

    private void chunk(Message.BundleChunk chunk) {
        BundleAssembly assembly = assemblies.computeIfAbsent(chunk.bundle(), BundleAssembly::new);
        CodeBundle bundle;
        try {
            bundle = assembly.add(chunk);
        } catch (CodeBundle.InvalidBundleException e) {
            assemblies.remove(chunk.bundle());
            awaiting.remove(chunk.bundle()); // its tasks fail to decode, saying the class is unknown
            System.err.println("worker: " + e.getMessage());
            return;
        }
        if (bundle != null) {
            assemblies.remove(chunk.bundle());
            for (java.util.function.Consumer<CodeBundle> bind : awaiting.getOrDefault(chunk.bundle(), List.of())) {
                bind.accept(bundle);
            }
            awaiting.remove(chunk.bundle());
        }
    }

    private void answer(ReadyTask t) throws IOException {
        TaskRunner.Outcome outcome = TaskRunner.decodeAndRun(codecs, t, new TaskHost(speed, this::files));
        switch (outcome) {
            case TaskRunner.Outcome.Done d -> {
                String tooLarge = d.completion().tooLargeFor(maxMessageBytes);
                if (tooLarge != null) {
                    streams.write(new Message.TaskFailed(t.task().id(), tooLarge));
                } else {
                    streams.write(new Message.Completed(new Completion[] {d.completion()}), producerValues);
                }
            }
            case TaskRunner.Outcome.Failed f -> streams.write(new Message.TaskFailed(f.id(), f.reason()));
        }
    }
}
