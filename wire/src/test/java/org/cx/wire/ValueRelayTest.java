package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server passing a large value on as it arrives ({@link ValueLink#relay}): over real pipelines (codecs and links),
 * from a producer's connection to a reader's, with the reader's end as a producer or consumer has it.
 */
class ValueRelayTest {
    private static final long COMPUTATION = 42;
    private static final Continuation TO = Continuation.to(TaskId.root(COMPUTATION).child(3), 1);
    private final ValueStore producer = ValueStore.temporary("test-producer");
    private final ValueStore server = ValueStore.temporary("test-server");
    private final ValueStore reader = ValueStore.temporary("test-reader");
    /** The server's end of the producer's connection, and of the reader's. */
    private EmbeddedChannel fromProducer;
    private EmbeddedChannel toReader;
    /** The reader's end, which takes releases from the server as a producer's or consumer's end does. */
    private EmbeddedChannel atReader;
    private long[] data;
    private ValueRef ref;

    @BeforeEach
    void open() {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        data = new long[5 * ValueStore.CHUNK_BYTES / 8 + 3];
        Random r = new Random(seed);
        for (int i = 0; i < data.length; i++) {
            data[i] = r.nextLong();
        }
        ref = ValueRef.of(codec(producer).encodeValue(data, COMPUTATION, () -> "value"));
        fromProducer = end(server, true);
        toReader = end(server, true);
        atReader = end(reader, false);
    }

    @AfterEach
    void close() {
        fromProducer.finishAndReleaseAll();
        toReader.finishAndReleaseAll();
        atReader.finishAndReleaseAll();
        producer.close();
        server.close();
        reader.close();
    }

    private static BodyCodec codec(ValueStore values) {
        return new BodyCodecs(ValueRelayTest.class.getClassLoader(), 0, values).forComputation(COMPUTATION);
    }

    private static EmbeddedChannel end(ValueStore values, boolean accepted) {
        EmbeddedChannel ch = new EmbeddedChannel();
        WirePipeline.install(ch, 16 << 20, null, accepted, null, values);
        return ch;
    }

    private static ValueLink link(EmbeddedChannel ch) {
        return ch.pipeline().get(ValueLink.class);
    }

    /** Carries what {@code from} wrote to {@code to}, one frame at a time; what {@code to} passed on. */
    private static List<Object> carry(EmbeddedChannel from, EmbeddedChannel to) {
        from.flushOutbound();
        List<Object> read = new ArrayList<>();
        for (Object o; (o = from.readOutbound()) != null; ) {
            to.writeInbound(o);
            for (Object m; (m = to.readInbound()) != null; ) {
                read.add(m);
            }
        }
        return read;
    }

    private List<Message.ValueChunk> chunks() throws Exception {
        List<Message.ValueChunk> all = new ArrayList<>();
        try (ValueStore.Chunks chunks = producer.chunks(ref)) {
            while (!chunks.done()) {
                all.add(chunks.next());
            }
        }
        return all;
    }

    /** The value's chunks, of which the first two have arrived at the server and gone on to the reader. */
    private List<Message.ValueChunk> relayedPart() throws Exception {
        List<Message.ValueChunk> chunks = chunks();
        link(fromProducer).relay(ref, List.of(link(toReader)));
        fromProducer.writeInbound(chunks.get(0));
        fromProducer.writeInbound(chunks.get(1));
        return chunks;
    }

    private Message.Inputs readsIt() {
        return new Message.Inputs(new ValueEnvelope[] {new ValueEnvelope(TO, ref.bytes())});
    }

    /**
     * The producer says where its value goes before the value; the server passes each chunk on as it comes, the
     * reader holds the whole value before any message refers to it, and the value crosses to it once.
     */
    @Test
    void aValueGoesOnAsItArrivesAndOnlyOnce() {
        EmbeddedChannel atProducer = end(producer, false);
        Completion done = new Completion(TaskId.root(COMPUTATION).child(2), new TaskEnvelope[0],
                new ValueEnvelope[] {new ValueEnvelope(TO, ref.bytes())}, 0);
        atProducer.writeOutbound(new Message.Completed(new Completion[] {done}));
        atProducer.flushOutbound();
        List<Object> passed = new ArrayList<>();
        int frames = 0;
        boolean onItsWay = false;
        for (Object frame; (frame = atProducer.readOutbound()) != null; frames++) {
            fromProducer.writeInbound(frame);
            for (Object m; (m = fromProducer.readInbound()) != null; ) {
                passed.add(m);
                if (m instanceof Message.ValueHeading h) {
                    assertEquals(ref, ValueRef.of(h.ref()));
                    assertEquals(TO, h.to());
                    link(fromProducer).relay(ValueRef.of(h.ref()), List.of(link(toReader)));
                }
            }
            if (frames == 2) {
                assertFalse(server.holds(ref), "the value is still arriving");
                assertEquals(List.of(), carry(toReader, atReader), "chunks only");
                onItsWay = reader.bytesReceived() > 0;
            }
        }
        atProducer.finishAndReleaseAll();
        assertTrue(onItsWay, "the first chunks reached the reader before the last left the producer");
        assertEquals(2, passed.size(), "the heading and the completion: " + passed);
        assertInstanceOf(Message.ValueHeading.class, passed.get(0));
        assertInstanceOf(Message.Completed.class, passed.get(1));
        assertTrue(server.holds(ref));
        assertEquals(List.of(), carry(toReader, atReader));
        assertTrue(reader.holds(ref));
        assertArrayEquals(data, (long[]) codec(reader).decode(ref.bytes()));
        toReader.writeOutbound(readsIt());
        List<Object> read = carry(toReader, atReader);
        assertEquals(1, read.size());
        assertInstanceOf(Message.Inputs.class, read.get(0));
        assertEquals(ref.size(), server.bytesSent(), "passed on once, not again before the message");
        assertEquals(ref.size(), link(fromProducer).bytesRelayed());
    }

    /**
     * A message that refers to a value still being relayed (no server writes one: it refers to a value once it holds
     * it) is never held back: it ends the relay, and the reader lets go of the part it has.
     */
    @Test
    void aMessageReferringToAValueStillRelayedEndsTheRelay() throws Exception {
        List<Message.ValueChunk> chunks = relayedPart();
        toReader.writeOutbound(readsIt());
        List<Object> read = carry(toReader, atReader);
        assertEquals(1, read.size(), "the message went at once: " + read);
        assertInstanceOf(Message.Inputs.class, read.get(0));
        assertEquals(0, reader.memoryBytes(), "the part that came is let go");
        long relayed = link(fromProducer).bytesRelayed();
        for (Message.ValueChunk c : chunks.subList(2, chunks.size())) {
            fromProducer.writeInbound(c);
        }
        assertEquals(relayed, link(fromProducer).bytesRelayed(), "the rest stays at the server");
        assertTrue(server.holds(ref));
        toReader.writeOutbound(readsIt());
        assertEquals(1, carry(toReader, atReader).size());
        assertTrue(reader.holds(ref), "then it goes whole ahead of the next message that refers to it");
    }

    /** The producer's connection closes mid-value: the reader lets go of the part it has. */
    @Test
    void aRelayCutShortLeavesNothingAtTheReader() throws Exception {
        List<Message.ValueChunk> chunks = relayedPart();
        chunks.subList(2, chunks.size()).forEach(Message.ValueChunk::release); // they never come
        carry(toReader, atReader);
        assertTrue(reader.memoryBytes() > 0, "part of the value is at the reader");
        fromProducer.close();
        assertEquals(List.of(), carry(toReader, atReader));
        assertEquals(0, reader.memoryBytes(), "the part that came is let go");
        assertFalse(reader.holds(ref));
    }

    /**
     * A value whose bytes do not match its checksum is refused at the server, and its last chunk never reaches the
     * reader, which lets go of the rest.
     */
    @Test
    void aDamagedValueIsNotPassedOnWhole() throws Exception {
        List<Message.ValueChunk> chunks = chunks();
        link(fromProducer).relay(ref, List.of(link(toReader)));
        Message.ValueChunk last = chunks.get(chunks.size() - 1);
        byte[] damaged = io.netty.buffer.ByteBufUtil.getBytes(last.data());
        last.release();
        damaged[0] ^= 1;
        for (Message.ValueChunk c : chunks.subList(0, chunks.size() - 1)) {
            fromProducer.writeInbound(c);
        }
        assertThrows(MalformedMessageException.class,
                () -> fromProducer.writeInbound(new Message.ValueChunk(last.ref(), last.offset(), damaged)));
        assertEquals(List.of(), carry(toReader, atReader));
        assertFalse(reader.holds(ref));
        assertEquals(0, reader.memoryBytes(), "what came is let go");
        assertFalse(server.holds(ref));
    }

    /** Nothing is relayed to an end that holds the value already (here: it referred to it). */
    @Test
    void aValueTheReaderHoldsIsNotRelayedToIt() throws Exception {
        List<Message.ValueChunk> chunks = chunks();
        for (Message.ValueChunk c : chunks) {
            atReader.writeInbound(c); // it came to the reader before
        }
        atReader.writeOutbound(readsIt());
        assertEquals(1, carry(atReader, toReader).size(), "the reference alone: the server's end counts it as held");
        link(fromProducer).relay(ref, List.of(link(toReader)));
        for (Message.ValueChunk c : chunks()) {
            fromProducer.writeInbound(c);
        }
        assertTrue(server.holds(ref));
        assertEquals(0, link(fromProducer).bytesRelayed(), "the reader's end holds it");
    }
}
