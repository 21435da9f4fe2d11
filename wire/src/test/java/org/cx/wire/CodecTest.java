package org.cx.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.List;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.junit.jupiter.api.Test;

/** The framing and message codec without sockets. */
class CodecTest {
    private static final int MAX = 64 * 1024;

    static List<Message> samples() {
        TaskId parent = TaskId.root(42).child(1);
        TaskId child = parent.child(2);
        TaskEnvelope env = new TaskEnvelope(child, Continuation.to(parent.child(0), 1), 2, -3, true, new byte[] {1, 2, 3});
        return List.of(
                new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, "p", 4),
                new Message.Hello(WireConfig.PROTOCOL_VERSION, Role.PRODUCER, "p", 4, "service:jmx:rmi:///x"),
                new Message.Welcome(1, 99, "server", 3, new String[] {"127.0.0.1:7071"}),
                new Message.Refused("because"),
                new Message.Submit(5, env, ""),
                new Message.Submit(6, env, "ab".repeat(32)),
                new Message.Submit(7, env, "", 2),
                new Message.Submit(8, env, "", 1, -7, 60_000),
                new Message.Prioritize(42, Integer.MIN_VALUE),
                new Message.Prioritized(42, "over already"),
                new Message.ListComputations(),
                new Message.Collect(42, true),
                new Message.ComputationList(new Message.Diagnosis[] {Message.Diagnosis.unknown(9),
                    new Message.Diagnosis(10, "FAILED", 1, 2, 3, new Message.WaitingTask[0], false, 5, 6, 7, "oops")}),
                new Message.NeedBundle(6, "ab".repeat(32)),
                new Message.SubmitRefused(6, "the bundle is corrupt"),
                new Message.BundleChunk("ab".repeat(32), 0, 3, new byte[] {1, 2, 3}),
                new Message.FetchBundle("ab".repeat(32)),
                new Message.NoBundle("ab".repeat(32), "nobody has it"),
                new Message.Code(42, "ab".repeat(32), "alice", true),
                new Message.Accepted(5, 42),
                new Message.Collect(42),
                new Message.Result(42, new byte[] {9}, 10, 11, 12, 13),
                new Message.Failed(42, "42:/1", "boom"),
                new Message.Collected(42),
                new Message.Request(3, 1, 2),
                new Message.Assign(new ReadyTask[] {new ReadyTask(env, new byte[][] {{7}, {}})}),
                new Message.Completed(new Completion[] {new Completion(parent, new TaskEnvelope[] {env},
                        new ValueEnvelope[] {new ValueEnvelope(Continuation.CONSUMER, new byte[] {4})}, 1234, 987, 0, -1,
                        true)}),
                new Message.Completed(new Completion[] {new Completion(parent, new TaskEnvelope[] {env, env},
                        new ValueEnvelope[0], 12, 9, 0, -1, false, 1)}),
                new Message.Completed(new Completion[] {new Completion(child, new TaskEnvelope[0],
                        new ValueEnvelope[] {new ValueEnvelope(Continuation.to(parent, 1), new byte[] {4})}, 5)
                        .withClaimedValue(0)}),
                new Message.Inputs(new ValueEnvelope[] {new ValueEnvelope(Continuation.to(child, 1), new byte[] {5})}),
                new Message.Keep(new TaskEnvelope[] {env}),
                new Message.Unkeep(new TaskId[] {child}),
                new Message.TaskFailed(child, "trace"),
                new Message.Drop(new TaskId[] {child, parent}),
                new Message.Revoke(new TaskId[] {child}),
                new Message.Released(new TaskId[] {}),
                new Message.ComputationEnded(42),
                new Message.ComputationStarted(43),
                new Message.ValueHeading(new ValueRef(42, 1, 2, 10, 7).bytes(), Continuation.CONSUMER),
                new Message.ValueHeading(new ValueRef(42, 1, 2, 10, 7).bytes(),
                        Continuation.to(TaskId.root(42).child(1), 1)),
                new Message.ValueChunk(new ValueRef(42, 1, 2, 10, 7).bytes(), 3, new byte[] {1, 2, 3}),
                new Message.StateLost(3, "server 3 and its mirror group failed"),
                new Message.Mirrors(new String[] {"a:1", "b:2"}),
                new Message.Join("s", "127.0.0.1:7072", "service:jmx:rmi:///jndi/rmi://127.0.0.1:9010/jmxrmi"),
                new Message.Topology(7, 2, 3, new Message.Member[] {new Message.Member(1, "a", "a:1", "")},
                        new int[] {2}, new int[] {1}),
                new Message.Heartbeat(3, 7, new int[] {1, 2}, new long[] {5, 6}, 4, 3, 9, 2, 100, 6),
                new Message.Load(3, 4, 5, 2, 9, 1, 6),
                new Message.Mirror(3, 12, false, true, new MirrorOp[] {
                    new MirrorOp.Put(env, 3, 1, new byte[][] {null, {5}}),
                    new MirrorOp.Input(child, 1, new byte[] {6}),
                    new MirrorOp.Remove(parent),
                    new MirrorOp.Code(42, "cd".repeat(32)),
                    new MirrorOp.Started(42, 77, "alice", 2, -4, 9_000_000_000L),
                    new MirrorOp.Reprioritized(42, 12),
                    new MirrorOp.Tally(42, new RoutedPayload.Tally(3, 4, 5_000_000)),
                    new MirrorOp.Finished(42, null, "42:/1", "boom", 1, 2, 3, 4),
                    new MirrorOp.Send(3, 1, 8, new RoutedPayload.Value(42,
                            new ValueEnvelope(Continuation.to(parent, 0), new byte[] {1}),
                            new RoutedPayload.Tally(5, 6, 7_000_000))),
                }),
                new Message.Routed(3, 1, 9, new RoutedPayload.Transfer(42, 1, "", "alice", -3,
                        new ReadyTask[] {new ReadyTask(env, new byte[][] {{7}, {}})}, new int[] {3},
                        new RoutedPayload.Tally(1, 1, 1_000))),
                new Message.NetworkStatus(7, 2, true, new Message.ServerStatus[] {
                    new Message.ServerStatus(1, "a", "a:1", 0, new int[] {2}, new int[] {2}, 1, 2, 3, 4, 5, "")}));
    }

    private static ByteBuf encodeAll(List<Message> messages) {
        EmbeddedChannel out = new EmbeddedChannel(new MessageEncoder(MAX));
        for (Message m : messages) {
            assertTrue(out.writeOutbound(io.netty.util.ReferenceCountUtil.retain(m))); // the test encodes it again
        }
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b; (b = out.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        assertFalse(out.finish());
        return all;
    }

    private static EmbeddedChannel decoder() {
        EmbeddedChannel ch = new EmbeddedChannel();
        WirePipeline.install(ch, MAX, null, true);
        return ch;
    }

    @Test
    void everyMessageSurvivesInputSplitAtEveryByte() {
        List<Message> messages = samples();
        ByteBuf bytes = encodeAll(messages);
        byte[] all = new byte[bytes.readableBytes()];
        bytes.readBytes(all);
        bytes.release();
        for (int split = 0; split <= all.length; split++) {
            EmbeddedChannel ch = decoder();
            ch.writeInbound(Unpooled.wrappedBuffer(all, 0, split));
            ch.writeInbound(Unpooled.wrappedBuffer(all, split, all.length - split));
            List<Message> decoded = new ArrayList<>();
            for (Object o; (o = ch.readInbound()) != null; ) {
                decoded.add((Message) o);
            }
            assertEquals(messages.size(), decoded.size(), "split at " + split);
            for (int i = 0; i < messages.size(); i++) {
                assertSame(messages.get(i), decoded.get(i));
                io.netty.util.ReferenceCountUtil.release(decoded.get(i));
            }
            assertFalse(ch.finish());
        }
    }

    @Test
    void oneByteAtATime() {
        ByteBuf bytes = encodeAll(samples());
        EmbeddedChannel ch = decoder();
        while (bytes.isReadable()) {
            ch.writeInbound(bytes.readRetainedSlice(1));
        }
        bytes.release();
        int n = 0;
        for (Object o; (o = ch.readInbound()) != null; n++) {
            io.netty.util.ReferenceCountUtil.release(o);
        }
        assertEquals(samples().size(), n);
        assertFalse(ch.finish());
    }

    /** Records compare arrays by identity, so compare the encodings instead. */
    private static void assertSame(Message expected, Message actual) {
        assertEquals(expected.getClass(), actual.getClass());
        ByteBuf a = encodeAll(List.of(expected));
        ByteBuf b = encodeAll(List.of(actual));
        assertEquals(a, b, expected.getClass().getSimpleName());
        a.release();
        b.release();
    }

    @Test
    void unknownMessageIdIsRefused() {
        EmbeddedChannel ch = decoder();
        ByteBuf frame = Unpooled.buffer().writeInt(2).writeByte(120).writeByte(1); // class id 119: unregistered
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(frame));
        assertInstanceOf(MalformedMessageException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("unregistered class"), e.getCause().getMessage());
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void aStringOrArrayLongerThanItsFrameIsRefusedBeforeAllocation() {
        // A Hello whose name claims 2^30 characters, in a frame of a few bytes (it once cost 2 GiB of heap).
        com.esotericsoftware.kryo.io.Output hello = new com.esotericsoftware.kryo.io.Output(32);
        hello.writeVarInt(20 + 2, true); // Hello's class id
        hello.writeVarInt(WireConfig.PROTOCOL_VERSION, true);
        hello.writeVarInt(Role.PRODUCER.ordinal(), true);
        hello.writeVarIntFlag(true, (1 << 30) + 1, true);
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> MessageDecoder.decode(Unpooled.wrappedBuffer(hello.toBytes())));
        assertTrue(e.getMessage().contains("string of 1073741824 characters exceeds the frame"), e.getMessage());

        // Mirrors claiming a million addresses in a frame of four bytes.
        com.esotericsoftware.kryo.io.Output mirrors = new com.esotericsoftware.kryo.io.Output(32);
        mirrors.writeVarInt(ProtocolCodec.newKryo().getRegistration(Message.Mirrors.class).getId() + 2, true);
        mirrors.writeVarInt(1 << 20, true);
        e = assertThrows(MalformedMessageException.class,
                () -> MessageDecoder.decode(Unpooled.wrappedBuffer(mirrors.toBytes())));
        assertTrue(e.getMessage().contains("exceeds the frame"), e.getMessage());
    }

    @Test
    void truncatedMessageIsRefused() {
        ByteBuf full = encodeAll(List.of(samples().get(11)));
        int length = full.getInt(0);
        ByteBuf cut = Unpooled.buffer().writeInt(length - 3).writeBytes(full, 4, length - 3);
        full.release();
        EmbeddedChannel ch = decoder();
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(cut));
        assertInstanceOf(MalformedMessageException.class, e.getCause());
        ch.finishAndReleaseAll();
    }

    @Test
    void trailingGarbageIsRefused() {
        ByteBuf full = encodeAll(List.of(new Message.Collect(1)));
        int length = full.getInt(0);
        ByteBuf padded = Unpooled.buffer().writeInt(length + 1).writeBytes(full, 4, length).writeByte(0);
        full.release();
        EmbeddedChannel ch = decoder();
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(padded));
        assertTrue(e.getCause().getMessage().contains("trailing"), e.getCause().getMessage());
        ch.finishAndReleaseAll();
    }

    @Test
    void oversizedFrameIsRefusedBeforeItIsBuffered() {
        EmbeddedChannel ch = decoder();
        ByteBuf header = Unpooled.buffer().writeInt(MAX + 1).writeByte(0);
        assertThrows(TooLongFrameException.class, () -> ch.writeInbound(header));
        ch.finishAndReleaseAll();
    }

    @Test
    void oversizedOutboundMessageIsRefusedWithItsSize() {
        EmbeddedChannel out = new EmbeddedChannel(new MessageEncoder(1024, 2048));
        Exception e = assertThrows(Exception.class,
                () -> out.writeOutbound(new Message.Result(1, new byte[4096], 0, 0, 0, 0)));
        assertTrue(e.getMessage().contains("exceeds the message limit of 2048"), e.getMessage());
        out.finishAndReleaseAll();
    }

    /** Frames of {@code frameBytes} in both directions, messages of up to 64 MiB. */
    private static EmbeddedChannel fragmenting(int frameBytes) {
        return new EmbeddedChannel(new FrameDecoder(frameBytes, null), new MessageDecoder(64 << 20),
                new MessageEncoder(frameBytes, 64 << 20));
    }

    @Test
    void aMessageLargerThanAFrameTravelsInFragmentsBetweenOthers() {
        long seed = System.nanoTime();
        System.out.println("seed " + seed);
        byte[] value = new byte[3 * 4096 + new java.util.Random(seed).nextInt(4096)];
        new java.util.Random(seed).nextBytes(value);
        EmbeddedChannel ch = fragmenting(4096);
        List<Message> sent = List.of(new Message.Request(1, 0), new Message.Result(7, value, 1, 2, 3, 4),
                new Message.Request(2, 1));
        for (Message m : sent) {
            ch.writeOutbound(m);
        }
        int frames = 0;
        for (ByteBuf b; (b = ch.readOutbound()) != null; frames++) {
            assertTrue(b.readableBytes() <= 4096 + 4, "no frame over the limit: " + b.readableBytes());
            ch.writeInbound(b);
        }
        assertTrue(frames >= 2 + 4, "the result went in fragments: " + frames + " frames");
        assertEquals(sent.get(0), ch.readInbound());
        Message.Result result = ch.readInbound();
        assertArrayEquals(value, result.value());
        assertEquals(sent.get(2), ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void aFragmentedMessageOverTheLimitOrInterruptedIsRefused() {
        EmbeddedChannel ch = fragmenting(4096);
        ByteBuf over = encodeAll(List.of(new Message.Fragment((64 << 20) + 1, new byte[10])));
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(over));
        assertTrue(e.getCause().getMessage().contains("the limit is 67108864"), e.getCause().getMessage());
        ch.finishAndReleaseAll();

        EmbeddedChannel interrupted = fragmenting(4096);
        ByteBuf frames = encodeAll(List.of(new Message.Fragment(100, new byte[10]), new Message.Request(1, 0)));
        e = assertThrows(DecoderException.class, () -> interrupted.writeInbound(frames));
        assertTrue(e.getCause().getMessage().contains("Request between the fragments"), e.getCause().getMessage());
        interrupted.finishAndReleaseAll();
    }

    @Test
    void hugeArrayCountInAFrameIsRefused() {
        // A Drop claiming 2^30 ids in a 6-byte frame.
        ByteBuf frame = Unpooled.buffer();
        frame.writeInt(6).writeByte(20 + 13 + 1).writeBytes(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x04});
        EmbeddedChannel ch = decoder();
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(frame));
        assertInstanceOf(MalformedMessageException.class, e.getCause());
        ch.finishAndReleaseAll();
    }

    @Test
    void bodyCodecRefusesRuntimeClassesAndNamesMissingOnes() {
        BodyCodec codec = new BodyCodecs(getClass().getClassLoader()).forComputation(1);
        assertArrayEquals(new long[] {1, 2}, (long[]) codec.decode(codec.encode(new long[] {1, 2})));
        byte[] runtimeClass = codec.encode(new Message.Collect(1)); // a protocol record is not application data
        BodyCodec.UndecodableException e = assertThrows(BodyCodec.UndecodableException.class,
                () -> codec.decode(runtimeClass));
        assertTrue(e.getMessage().contains("outside the allow-list"), e.getMessage());
    }
}
