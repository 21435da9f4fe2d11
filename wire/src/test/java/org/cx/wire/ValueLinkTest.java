package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Large values by reference: stores, chunks on a connection, and what is refused. */
class ValueLinkTest {
    private static final long COMPUTATION = 42;
    /** Longs of a value of three times the inline limit: held by reference, in several chunks. */
    private static final int LARGE_LONGS = (int) (3 * ValueStore.inlineLimit() / 8);
    private final ValueStore sender = ValueStore.temporary("test-sender");
    private final ValueStore receiver = ValueStore.temporary("test-receiver");

    @AfterEach
    void close() {
        sender.close();
        receiver.close();
    }

    private static BodyCodec codec(ValueStore values) {
        return new BodyCodecs(ValueLinkTest.class.getClassLoader(), 0, values).forComputation(COMPUTATION);
    }

    private static long[] randomLongs(int n, long seed) {
        long[] a = new long[n];
        Random r = new Random(seed);
        for (int i = 0; i < n; i++) {
            a[i] = r.nextLong();
        }
        return a;
    }

    @Test
    void aSmallValueTravelsInlineAndALargeOneAsAReferenceToAFile() {
        BodyCodec codec = codec(sender);
        byte[] small = codec.encodeValue(new long[16], COMPUTATION, () -> "small");
        assertFalse(ValueRef.is(small));
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        long[] large = randomLongs(LARGE_LONGS, seed);
        byte[] ref = codec.encodeValue(large, COMPUTATION, () -> "large");
        assertTrue(ValueRef.is(ref));
        assertEquals(1, sender.count());
        assertTrue(sender.heldBytes() > 8L * large.length, "raw bytes and a header, not varints of a random long");
        assertTrue(sender.heldBytes() < 8L * large.length + 16);
        assertArrayEquals(large, (long[]) codec.decode(ref));
        sender.drop(COMPUTATION);
        assertEquals(0, sender.count());
        Exception e = assertThrows(BodyCodec.UndecodableException.class, () -> codec.decode(ref));
        assertTrue(e.getMessage().contains("not held by this process"), e.getMessage());
    }

    /** A sender and a receiver, each with a store, joined by encoder and decoder as on a connection. */
    private static EmbeddedChannel end(ValueStore values) {
        EmbeddedChannel ch = new EmbeddedChannel();
        WirePipeline.install(ch, 16 << 20, null, true, null, values);
        return ch;
    }

    private static List<Object> carry(EmbeddedChannel from, EmbeddedChannel to) {
        from.flushOutbound();
        for (Object o; (o = from.readOutbound()) != null; ) {
            to.writeInbound(o);
        }
        List<Object> read = new ArrayList<>();
        for (Object o; (o = to.readInbound()) != null; ) {
            read.add(o);
        }
        return read;
    }

    /** With a memory budget of 0, every value is held in a file; with 1 GiB, in memory. */
    @ParameterizedTest
    @ValueSource(longs = {0, 1L << 30})
    void aValueGoesAheadOfTheFirstMessageReferringToItAndOnlyOnce(long memoryBudget) throws Exception {
        try (ValueStore sender = new ValueStore(this.sender.directory().resolve("budget"), memoryBudget);
             ValueStore receiver = new ValueStore(this.receiver.directory().resolve("budget"), memoryBudget)) {
            aValueGoesAheadOfTheFirstMessageReferringToIt(sender, receiver);
            try (var files = Files.list(receiver.directory())) {
                assertEquals(memoryBudget == 0 ? 1 : 0, files.count(), "where the value is held");
            }
        }
    }

    private static void aValueGoesAheadOfTheFirstMessageReferringToIt(ValueStore sender, ValueStore receiver) {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        long[] large = randomLongs(5 * ValueStore.CHUNK_BYTES / 8 + 3, seed);
        byte[] ref = codec(sender).encodeValue(large, COMPUTATION, () -> "large");
        TaskId task = TaskId.root(COMPUTATION).child(0);
        Message inputs = new Message.Inputs(new ValueEnvelope[] {new ValueEnvelope(Continuation.to(task, 0), ref)});
        EmbeddedChannel out = end(sender);
        EmbeddedChannel in = end(receiver);
        out.writeOutbound(inputs);
        List<Object> first = carry(out, in);
        assertEquals(1, first.size(), "the chunks are taken in, only the message goes on: " + first);
        assertInstanceOf(Message.Inputs.class, first.get(0));
        assertEquals(1, receiver.count());
        assertArrayEquals(large, (long[]) codec(receiver).decode(ref));
        long sent = sender.bytesSent();
        out.writeOutbound(inputs);
        assertEquals(1, carry(out, in).size());
        assertEquals(sent, sender.bytesSent(), "the other end holds it: not sent again");
        out.writeOutbound(new Message.ComputationEnded(COMPUTATION));
        assertEquals(1, carry(out, in).size());
        out.writeOutbound(inputs);
        carry(out, in);
        assertEquals(2 * sent, sender.bytesSent(), "after its computation ended there, it goes again");
        out.finishAndReleaseAll();
        in.finishAndReleaseAll();
    }

    /**
     * A release goes on only to an end that holds one of its values, and lets it go there; after it the end counts as
     * holding it no longer.
     */
    @Test
    void aReleaseReachesOnlyAnEndThatHoldsTheValueAndLetsItGoThere() {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        long[] large = randomLongs(LARGE_LONGS, seed);
        byte[] ref = codec(sender).encodeValue(large, COMPUTATION, () -> "large");
        byte[] other = codec(sender).encodeValue(randomLongs(LARGE_LONGS, seed + 1), COMPUTATION,
                () -> "other");
        Message.ValuesReleased released = new Message.ValuesReleased(new byte[][] {ref, other});
        EmbeddedChannel out = end(sender);
        EmbeddedChannel in = end(receiver);
        in.pipeline().get(ValueLink.class).takeReleases(); // the sender is a server
        out.writeOutbound(released);
        assertEquals(List.of(), carry(out, in), "the other end holds neither: nothing goes");
        TaskId task = TaskId.root(COMPUTATION).child(0);
        out.writeOutbound(new Message.Inputs(new ValueEnvelope[] {new ValueEnvelope(Continuation.to(task, 0), ref)}));
        carry(out, in);
        assertEquals(1, receiver.count());
        long sent = sender.bytesSent();
        out.writeOutbound(released);
        assertEquals(List.of(), carry(out, in), "taken in by the link, not passed on");
        assertEquals(0, receiver.count(), "the receiver let the value go");
        assertEquals(sent, sender.bytesSent(), "a release carries no value");
        out.writeOutbound(released);
        out.flushOutbound();
        assertNull(out.readOutbound(), "the other end no longer holds it: a second release stays here");
        sender.release(ValueRef.of(ref));
        assertEquals(1, sender.count(), "the value not released stays");
        out.finishAndReleaseAll();
        in.finishAndReleaseAll();
    }

    /**
     * A server that routes a value on lets go of it once the receiver acknowledges: a task diffused back that reads
     * it must carry it again, where a value the other end sent for any other reason is counted as held there.
     */
    @Test
    void aValueRoutedOnIsNotCountedAsHeldByTheServerThatHandedItOn() throws Exception {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        byte[] ref = codec(sender).encodeValue(randomLongs(LARGE_LONGS, seed), COMPUTATION, () -> "v");
        ValueEnvelope value = new ValueEnvelope(Continuation.to(TaskId.root(COMPUTATION).child(0), 0), ref);
        Message.Inputs readsIt = new Message.Inputs(new ValueEnvelope[] {value});
        PeerValues fromServer = new PeerValues(receiver, true);
        try (ValueStore.Chunks chunks = sender.chunks(ValueRef.of(ref))) {
            while (!chunks.done()) {
                assertTrue(fromServer.received(chunks.next()));
            }
        }
        assertEquals(List.of(), fromServer.toSendBefore(readsIt), "the sender of the chunks holds the value");
        fromServer.received(new Message.Routed(1, 2, 1, new RoutedPayload.Value(COMPUTATION, value, null)));
        assertEquals(List.of(ValueRef.of(ref)), fromServer.toSendBefore(readsIt),
                "handed on: the value goes back with what reads it");
        assertEquals(List.of(), fromServer.toSendBefore(readsIt), "and once is enough");
    }

    /**
     * A routed message carries its values every time: the server it goes to hands them on and lets go of its copy on
     * its own, so that having sent them before on this connection says nothing about what it holds now.
     */
    @Test
    void aRoutedMessageAlwaysCarriesItsValues() {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        byte[] ref = codec(sender).encodeValue(randomLongs(LARGE_LONGS, seed), COMPUTATION, () -> "v");
        ValueEnvelope value = new ValueEnvelope(Continuation.to(TaskId.root(COMPUTATION).child(0), 0), ref);
        Message.Routed routed = new Message.Routed(1, 2, 1, new RoutedPayload.Value(COMPUTATION, value, null));
        PeerValues toServer = new PeerValues(sender, true);
        assertEquals(List.of(ValueRef.of(ref)), toServer.toSendBefore(routed));
        assertEquals(List.of(ValueRef.of(ref)), toServer.toSendBefore(routed), "and again");
        assertEquals(List.of(ValueRef.of(ref)), toServer.toSendBefore(new Message.Inputs(new ValueEnvelope[] {value})),
                "not counted as held there");
    }

    /**
     * A store counts the copies of a value that came to it, one per role: letting one go (handed on) keeps the value
     * while another copy is held; a release (nothing reads it again) lets it go whatever the count.
     */
    @Test
    void aValueThatCameAgainOutlivesTheCopyHandedOn() throws Exception {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        ValueRef ref = ValueRef.of(codec(sender).encodeValue(randomLongs(LARGE_LONGS, seed),
                COMPUTATION, () -> "v"));
        for (int round = 0; round < 2; round++) {
            for (int copy = 0; copy < 2; copy++) {
                try (ValueStore.Chunks chunks = sender.chunks(ref);
                     ValueStore.Arrival arrival = receiver.arrival(ref)) {
                    while (!chunks.done()) {
                        arrival.add(chunks.next());
                    }
                }
            }
            assertEquals(1, receiver.count(), "held once");
            if (round == 0) {
                receiver.letGo(ref);
                assertTrue(receiver.holds(ref), "the copy that came again stays");
                receiver.letGo(ref);
                assertFalse(receiver.holds(ref), "with the last copy, the value goes");
            } else {
                receiver.release(ref);
                assertFalse(receiver.holds(ref), "nothing reads it again: it goes, however many copies came");
            }
        }
        sender.letGo(ref);
        assertFalse(sender.holds(ref), "made here once: one copy");
    }

    /** A task run twice makes its large value twice, under two ids: the same value all the same, unlike another. */
    @Test
    void twoReferencesToTheSameBytesAreTheSameValue() {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        long[] data = randomLongs(LARGE_LONGS, seed);
        BodyCodec codec = codec(sender);
        byte[] first = codec.encodeValue(data, COMPUTATION, () -> "v");
        byte[] again = codec.encodeValue(data.clone(), COMPUTATION, () -> "v");
        data[0]++;
        byte[] other = codec.encodeValue(data, COMPUTATION, () -> "v");
        assertFalse(java.util.Arrays.equals(first, again), "two ids");
        assertTrue(ValueRef.sameValue(first, again));
        assertFalse(ValueRef.sameValue(first, other));
        assertTrue(ValueRef.sameValue(new byte[] {1, 2}, new byte[] {1, 2}));
        assertFalse(ValueRef.sameValue(first, new byte[] {1, 2}));
    }

    /** Only a server may say which values go: from anyone else a release is refused, and the value stays. */
    @Test
    void aReleaseFromAPeerThatIsNoServerIsRefused() {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        byte[] ref = codec(receiver).encodeValue(randomLongs(LARGE_LONGS, seed), COMPUTATION, () -> "v");
        PeerValues fromProducer = new PeerValues(receiver, false);
        Exception e = assertThrows(MalformedMessageException.class,
                () -> fromProducer.received(new Message.ValuesReleased(new byte[][] {ref})));
        assertTrue(e.getMessage().contains("only a server may"), e.getMessage());
        assertEquals(1, receiver.count(), "the value stays");
        fromProducer.takeReleases();
        assertDoesNotThrow(() -> fromProducer.received(new Message.ValuesReleased(new byte[][] {ref})));
        assertEquals(0, receiver.count());
    }

    /** The same over a worker process's pipes ({@link MessageStreams}): a release goes only where the value went. */
    @Test
    void overPipesAReleaseGoesOnlyWhereTheValueWent() throws Exception {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        byte[] ref = codec(sender).encodeValue(randomLongs(LARGE_LONGS, seed), COMPUTATION, () -> "v");
        Message.ValuesReleased released = new Message.ValuesReleased(new byte[][] {ref});
        PeerValues toProcess = new PeerValues(sender, false);
        PeerValues inProcess = new PeerValues(receiver, true);
        java.io.ByteArrayOutputStream pipe = new java.io.ByteArrayOutputStream();
        MessageStreams out = new MessageStreams(java.io.InputStream.nullInputStream(), pipe, 16 << 20);
        out.write(released, toProcess);
        out.flush();
        assertEquals(0, pipe.size(), "the process was never sent it: nothing goes");
        TaskId task = TaskId.root(COMPUTATION).child(0);
        out.write(new Message.Inputs(new ValueEnvelope[] {new ValueEnvelope(Continuation.to(task, 0), ref)}),
                toProcess);
        out.write(released, toProcess);
        out.write(released, toProcess); // the process holds it no longer: this one stays here
        out.flush();
        MessageStreams in = new MessageStreams(new java.io.ByteArrayInputStream(pipe.toByteArray()),
                java.io.OutputStream.nullOutputStream(), 16 << 20);
        List<Message> passed = new ArrayList<>();
        int releases = 0;
        while (in.pending() > 0) {
            Message m = in.read();
            if (m instanceof Message.Inputs) {
                assertEquals(1, receiver.count(), "the value arrived ahead of the inputs");
            }
            releases += m instanceof Message.ValuesReleased ? 1 : 0;
            if (!inProcess.received(m)) {
                passed.add(m);
            }
        }
        assertEquals(1, releases, "one release went: the second found the process no longer holding the value");
        assertEquals(1, passed.size(), "chunks and releases are taken in: " + passed);
        assertInstanceOf(Message.Inputs.class, passed.get(0));
        assertEquals(0, receiver.count(), "the process let the value go");
    }

    @Test
    void aDamagedOrMisplacedChunkIsRefusedAndNothingPartialStays() throws Exception {
        byte[] value = new byte[(int) ValueStore.inlineLimit() + 10];
        new Random(7).nextBytes(value);
        byte[] ref = sender.keep(COMPUTATION, value);
        ValueRef r = ValueRef.of(ref);
        assertNotNull(r);
        PeerValues peer = new PeerValues(receiver, true);
        byte[] wrong = value.clone();
        wrong[5] ^= 1;
        Exception e = assertThrows(MalformedMessageException.class, () -> {
            peer.received(new Message.ValueChunk(ref, 0, java.util.Arrays.copyOf(wrong, ValueStore.CHUNK_BYTES)));
            peer.received(new Message.ValueChunk(ref, ValueStore.CHUNK_BYTES,
                    java.util.Arrays.copyOfRange(wrong, ValueStore.CHUNK_BYTES, wrong.length)));
        });
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
        Exception gap = assertThrows(MalformedMessageException.class,
                () -> peer.received(new Message.ValueChunk(ref, 5, new byte[3])));
        assertTrue(gap.getMessage().contains("where 0 was expected"), gap.getMessage());
        peer.closed();
        assertEquals(0, receiver.count());
        try (var files = Files.list(receiver.directory())) {
            assertEquals(List.of(), files.map(Path::getFileName).toList(), "no part of a value is left behind");
        }
        EmbeddedChannel in = end(receiver);
        EmbeddedChannel encoder = new EmbeddedChannel(new MessageEncoder(16 << 20));
        encoder.writeOutbound(new Message.ValueChunk(ref, r.size(), new byte[1]));
        Exception beyond = assertThrows(Exception.class, () -> {
            for (ByteBuf b; (b = encoder.readOutbound()) != null; ) {
                in.writeInbound(b);
            }
        });
        assertTrue(beyond.getMessage().contains("does not fit"), beyond.getMessage());
        in.finishAndReleaseAll();
        encoder.finishAndReleaseAll();
    }

    /**
     * A value let go while it is being sent and read stays whole for the sender and the reader, which hold references
     * of their own to its chunks; the chunks' memory goes back to the pool with the last of them.
     */
    @Test
    void aValueLetGoWhileSentAndReadStaysWholeForThemAndItsMemoryGoesBackToThePool() throws Exception {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        long[] data = randomLongs(LARGE_LONGS, seed);
        ValueRef ref = ValueRef.of(codec(sender).encodeValue(data, COMPUTATION, () -> "value"));
        ValueStore.Chunks sending = sender.chunks(ref);
        java.io.InputStream reading = sender.open(ref);
        sender.release(ref);
        assertFalse(sender.holds(ref));
        assertThrows(java.io.IOException.class, () -> sender.chunks(ref), "let go: nobody else may start sending it");
        PeerValues peer = new PeerValues(receiver, true);
        int chunks = 0;
        for (; !sending.done(); chunks++) {
            peer.received(sending.next());
        }
        sending.close();
        assertTrue(receiver.holds(ref));
        assertArrayEquals(data, (long[]) codec(receiver).decode(ref.bytes()));
        assertEquals(ref.size(), reading.readAllBytes().length);
        reading.close();
        int free = ChunkPool.SHARED.free();
        receiver.release(ref); // held the sender's buffers themselves: both stores are in this process
        assertEquals(free + chunks, ChunkPool.SHARED.free(), "the last references went: the memory is free again");
    }

    /** The directory of a store whose process was killed goes when a store opens; a live process's stays. */
    @Test
    void storesLeftBehindByDeadProcessesAreDeleted(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path dead = Files.createDirectory(tmp.resolve("cx-values-producer-a-p999999999-42")); // over any pid_max
        Files.writeString(dead.resolve("value"), "left behind");
        Path alive = Files.createDirectory(tmp.resolve("cx-values-server-p" + ProcessHandle.current().pid() + "-7"));
        Path other = Files.createDirectory(tmp.resolve("not-a-store-p999999999-1"));
        ValueStore.deleteLeftBehind(tmp);
        assertFalse(Files.exists(dead));
        assertTrue(Files.exists(alive) && Files.exists(other));
    }
}
