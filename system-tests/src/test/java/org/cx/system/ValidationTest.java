package org.cx.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.cx.consumer.Consumer;
import org.cx.examples.fib.Fib;
import org.cx.harness.LocalCluster;
import org.cx.producer.Producer;
import org.cx.producer.ProducerConfig;
import org.cx.producer.TaskBox;
import org.cx.security.Authority;
import org.cx.security.CredentialRole;
import org.cx.security.CxHome;
import org.cx.security.RevocationList;
import org.cx.security.Tls;
import org.cx.server.ServerConfig;
import org.cx.wire.BodyCodecs;
import org.cx.wire.Completion;
import org.cx.wire.EventLoops;
import org.cx.wire.Message;
import org.cx.wire.ReadyTask;
import org.cx.wire.Role;
import org.cx.wire.TaskEnvelope;
import org.cx.wire.ValueEnvelope;
import org.cx.wire.WireClient;
import org.cx.wire.WireConfig;
import org.junit.jupiter.api.Test;

/**
 * A volunteer whose credential is valid but whose answers are false, beside honest volunteers of other owners:
 * a validated computation's result stays right, and the liar is reported. Without validation the same liar makes
 * the result wrong (as the issue's probe did), which is what validation is for.
 */
class ValidationTest {

    private static Tls producer(Authority authority, String name) throws Exception {
        return Tls.of(authority.issue(CredentialRole.PRODUCER, name, Duration.ofDays(1)), RevocationList.none());
    }

    /** Answers every task it is given with the value 0 for its successor, and asks for more. */
    private static Channel liar(EventLoopGroup group, LocalCluster cluster, Tls tls, AtomicLong lies)
            throws Exception {
        BodyCodecs codecs = new BodyCodecs(ValidationTest.class.getClassLoader());
        Channel ch = WireClient.connect(group, cluster.server().address(), tls, new Message.Hello(
                WireConfig.PROTOCOL_VERSION, Role.PRODUCER, "mallory", 1), welcome ->
                new SimpleChannelInboundHandler<Message>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                        if (msg instanceof Message.Assign a) {
                            List<Completion> answers = new ArrayList<>();
                            for (ReadyTask t : a.tasks()) {
                                TaskEnvelope e = t.task();
                                byte[] zero = codecs.forComputation(e.id().computation()).encode(0L);
                                answers.add(new Completion(e.id(), new TaskEnvelope[0], new ValueEnvelope[] {
                                        new ValueEnvelope(e.continuation(), zero)}, 1));
                                lies.incrementAndGet();
                            }
                            ctx.write(new Message.Completed(answers.toArray(Completion[]::new)));
                            ctx.writeAndFlush(new Message.Request(a.tasks().length, 1));
                        }
                    }
                }, 10_000);
        ch.writeAndFlush(new Message.Request(4, 1));
        return ch;
    }

    @Test
    void aLyingVolunteerCannotChangeAValidatedResultAndIsReported() throws Exception {
        Authority authority = Authority.open(CxHome.authorityDir());
        EventLoopGroup group = EventLoops.create("liar", 1);
        List<Producer> honest = new ArrayList<>();
        AtomicLong lies = new AtomicLong();
        try (LocalCluster cluster = LocalCluster.start(ServerConfig.defaults().withName("validated"), 1, 0, 1, true);
             Consumer consumer = cluster.consumer()) {
            Channel mallory = liar(group, cluster, producer(authority, "mallory"), lies);
            for (int i = 0; i < 3; i++) {
                honest.add(Producer.start(ProducerConfig.of(cluster.server().address(), 1,
                        producer(authority, "volunteer-" + i)).withName("volunteer-" + i)
                        .withBox(TaskBox.inProcess())));
            }
            int n = 12;
            assertEquals(Fib.value(n), consumer.<Long>submitValidated(new Fib(n), 2).result()
                    .get(120, TimeUnit.SECONDS), "the quorum outvotes the liar");
            var status = cluster.server().status();
            System.out.printf("validated F(%d): %d tasks agreed, %d lies told, %d contradicted%n", n,
                    status.tasksValidated(), lies.get(), status.validationDissents());
            assertTrue(lies.get() > 0, "the liar took part");
            assertTrue(status.validationDissents() > 0, "and was caught");
            assertEquals(Fib.taskCount(n), status.tasksValidated(), "every task was validated");

            long wrong = consumer.<Long>submit(new Fib(n)).result().get(120, TimeUnit.SECONDS);
            System.out.printf("the same computation unvalidated: F(%d) = %d%n", n, wrong);
            mallory.close().sync();
        } finally {
            honest.forEach(Producer::close);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
