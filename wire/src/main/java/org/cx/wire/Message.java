package org.cx.wire;

import org.cx.api.TaskId;

/** Every message of the CX protocol. Each is registered with {@link ProtocolCodec}; nothing else can be read. */
public sealed interface Message {

    /** First frame from a client; {@code workers}: a producer's worker threads, or a server's id in the network. */
    record Hello(int version, Role role, String name, int workers, String jmx) implements Message {
        /** Without a JMX address. */
        public Hello(int version, Role role, String name, int workers) {
            this(version, role, name, workers, "");
        }
    }

    /**
     * The server accepts the handshake; {@code peerId} names this connection in the server's logs and counters.
     * {@code serverId} names the server in the production network; {@code mirrors} are the addresses
     * ({@code host:port}) of its mirror group: where a client goes if this server fails.
     */
    record Welcome(int version, long peerId, String serverName, int serverId, String[] mirrors) implements Message {
    }

    /** Server: your server's mirror group changed; fail over to one of these ({@code host:port}). */
    record Mirrors(String[] addresses) implements Message {
    }

    /** The peer refuses this connection, and closes it, for the reason given. */
    record Refused(String reason) implements Message {
    }

    /**
     * Consumer: start a computation with this root task (its id is assigned by the server), running from code bundle
     * {@code bundle} ({@link CodeBundle#CLASS_PATH} for none: the processes' own class paths). With {@code quorum}
     * above 1, each task's effects apply only once that many producers of different owners returned equal ones.
     * {@code priority} ranks it among its user's computations; after {@code timeoutMillis} (0: none) it fails.
     */
    record Submit(long requestId, TaskEnvelope root, String bundle, int quorum, int priority, long timeoutMillis)
            implements Message {
        /** The most producers that must agree on a task. */
        public static final int MAX_QUORUM = org.cx.api.SubmitOptions.MAX_QUORUM;

        public Submit {
            if (quorum < 1 || quorum > MAX_QUORUM) {
                throw new IllegalArgumentException("a quorum must be in 1.." + MAX_QUORUM + ", got " + quorum);
            }
        }

        /** A submission with default options. */
        public Submit(long requestId, TaskEnvelope root, String bundle) {
            this(requestId, root, bundle, 1);
        }

        /** A submission validated by {@code quorum} producers, with otherwise default options. */
        public Submit(long requestId, TaskEnvelope root, String bundle, int quorum) {
            this(requestId, root, bundle, quorum, 0, 0);
        }
    }

    /** Server: I do not have the bundle of submission {@code requestId}; upload it, then submit again. */
    record NeedBundle(long requestId, String bundle) implements Message {
    }

    /** Server: submission {@code requestId} is refused, for the reason given; the connection stays open. */
    record SubmitRefused(long requestId, String reason) implements Message {
    }

    /**
     * Part of a code bundle's bytes: {@code data} goes at {@code offset} of {@code total} bytes. The first chunk
     * carries the bundle's signature ({@code signer}: the signing user's certificate; both empty if unsigned).
     */
    record BundleChunk(String bundle, int offset, int total, byte[] data, byte[] signer, byte[] signature)
            implements Message {
        /** Unsigned, or not the first chunk. */
        public BundleChunk(String bundle, int offset, int total, byte[] data) {
            this(bundle, offset, total, data, new byte[0], new byte[0]);
        }
    }

    /** Producer or server: send me code bundle {@code bundle} (as {@link BundleChunk}s). */
    record FetchBundle(String bundle) implements Message {
    }

    /** The answer to {@link FetchBundle} when the bundle cannot be had. */
    record NoBundle(String bundle, String reason) implements Message {
    }

    /**
     * Server to producer, before the first task of {@code computation}: its tasks run from code bundle
     * {@code bundle} (empty: the class path), and they are {@code owner}'s (a worker process runs one user's code);
     * with {@code validated}, other producers check each result, so this one claims and keeps nothing of it.
     * {@code grant} is the server's signed word that this producer may act for the owner in the federated file
     * service ({@link org.cx.security.FileGrant}'s text, signer and signature; empty on a plain network).
     */
    record Code(long computation, String bundle, String owner, boolean validated, String grant, byte[] grantSigner,
                byte[] grantSignature) implements Message {
        /** Without a file grant. */
        public Code(long computation, String bundle, String owner, boolean validated) {
            this(computation, bundle, owner, validated, "", new byte[0], new byte[0]);
        }
    }

    /** Server: the submission {@code requestId} is computation {@code computation}. */
    record Accepted(long requestId, long computation) implements Message {
    }

    /**
     * Consumer: send me the result of {@code computation} when there is one. With {@code watch}, others are sent
     * it too and the server keeps it for a later collection; without, I take over its delivery and it is forgotten
     * once I say {@link Collected}.
     */
    record Collect(long computation, boolean watch) implements Message {
        public Collect(long computation) {
            this(computation, false);
        }
    }

    /**
     * Server: the result of {@code computation}, with what it cost: distinct tasks, all executions, the sum of one
     * execution time per task, and the time from submission to result. Kept until {@link Collected} or expiry.
     */
    record Result(long computation, byte[] value, long tasks, long executions, long t1Nanos, long wallNanos)
            implements Message {
    }

    /** Server: {@code computation} failed; {@code taskId} is the task to blame, or empty. */
    record Failed(long computation, String taskId, String reason) implements Message {
    }

    /** Consumer: stop {@code computation}, dropping its tasks everywhere. Answered by {@link CancelAnswer}. */
    record Cancel(long computation) implements Message {
    }

    /**
     * Server: {@code computation} was cancelled (its consumer also gets {@link Failed}), or, with a non-empty
     * {@code refusal}, why not (unknown here, another user's, already over).
     */
    record CancelAnswer(long computation, String refusal) implements Message {
    }

    /**
     * Consumer: give {@code computation} this priority among its user's computations; answered by
     * {@link Prioritized}. Server: the origin changed it; apply it to the computation's tasks here.
     */
    record Prioritize(long computation, int priority) implements Message {
    }

    /** Server: {@code computation} has its new priority, or, with a non-empty {@code refusal}, why not. */
    record Prioritized(long computation, String refusal) implements Message {
    }

    /** Consumer: which of my computations does this server deliver? Answered by {@link ComputationList}. */
    record ListComputations() implements Message {
    }

    /**
     * Server: the asking user's computations this server delivers (submitted here, or taken over), running or
     * with a result not yet collected, each as a {@link Diagnosis} without its waiting tasks listed.
     */
    record ComputationList(Diagnosis[] computations) implements Message {
    }

    /** Consumer: where does {@code computation} stand? Answered by {@link Diagnosis}. */
    record Diagnose(long computation) implements Message {
    }

    /**
     * Server: where {@code computation} stands here (see {@code org.cx.api.Diagnosis}); {@code phase} is empty for a
     * computation unknown here or another user's.
     */
    record Diagnosis(long computation, String phase, int ready, int running, int waiting, WaitingTask[] tasks,
                     boolean stalled, int priority, long completed, long elapsedMillis, String failure)
            implements Message {
        /** The answer for a computation unknown here, or another user's. */
        public static Diagnosis unknown(long computation) {
            return new Diagnosis(computation, "", 0, 0, 0, new WaitingTask[0], false, 0, 0, 0, "");
        }

        /** As the API gives it. */
        public org.cx.api.Diagnosis toApi() {
            java.util.List<org.cx.api.Diagnosis.Waiting> listed = new java.util.ArrayList<>();
            for (WaitingTask w : tasks) {
                listed.add(new org.cx.api.Diagnosis.Waiting(w.task(), w.arity(), w.missing()));
            }
            return new org.cx.api.Diagnosis(computation, phase, ready, running, waiting, listed, stalled, priority,
                    completed, java.time.Duration.ofMillis(elapsedMillis), failure);
        }
    }

    /** A task of a {@link Diagnosis} that waits for inputs: the input numbers it lacks. */
    record WaitingTask(TaskId task, int arity, int[] missing) {
    }

    /** Consumer: the result of {@code computation} was delivered; the server may forget it. */
    record Collected(long computation) implements Message {
    }

    /**
     * Producer: send me up to {@code credit} more tasks (negative: up to that many fewer than asked for before).
     * {@code idleWorkers} says how many workers have nothing to run right now; only those may be given a task
     * another producer already holds (eager scheduling). {@code openWorkers} says how many workers its owner's rules
     * let take tasks now (-1: not said, all of them): what it offers, for accounting.
     */
    record Request(int credit, int idleWorkers, int openWorkers) implements Message {
        /** A request that says nothing of open workers. */
        public Request(int credit, int idleWorkers) {
            this(credit, idleWorkers, -1);
        }
    }

    /**
     * Part of a message larger than one frame: the encoder cuts such a message's bytes into fragments, sent in order
     * with nothing between them, and the decoder joins the {@code total} bytes and decodes them as one message.
     */
    record Fragment(int total, byte[] data) implements Message {
    }

    /**
     * Bytes of a large value ({@link ValueRef}), sent in order ahead of the first message on a connection that refers
     * to it; see {@link ValueLink}.
     *
     * <p>It holds {@code data} as a reference-counted buffer (a pooled one off the heap, as it came off the
     * connection): whoever takes the chunk releases it, or hands it on, as with any Netty buffer. The store keeps
     * it as it is ({@link ValueStore}), so the heap neither zeroes nor collects the bytes of values.
     *
     * @param ref    the value's reference, as it travels
     * @param offset where {@code data} starts in the value
     */
    record ValueChunk(byte[] ref, long offset, io.netty.buffer.ByteBuf data)
            implements Message, io.netty.util.ReferenceCounted {
        /** A chunk over {@code data}, which it wraps. */
        public ValueChunk(byte[] ref, long offset, byte[] data) {
            this(ref, offset, io.netty.buffer.Unpooled.wrappedBuffer(data));
        }

        /** Bytes of data. */
        public int length() {
            return data.readableBytes();
        }

        @Override
        public int refCnt() {
            return data.refCnt();
        }

        @Override
        public ValueChunk retain() {
            data.retain();
            return this;
        }

        @Override
        public ValueChunk retain(int increment) {
            data.retain(increment);
            return this;
        }

        @Override
        public ValueChunk touch() {
            data.touch();
            return this;
        }

        @Override
        public ValueChunk touch(Object hint) {
            data.touch(hint);
            return this;
        }

        @Override
        public boolean release() {
            return data.release();
        }

        @Override
        public boolean release(int decrement) {
            return data.release(decrement);
        }
    }

    /**
     * Producer: the chunks of large value {@code ref} follow, and the value goes to {@code to}. The server may pass
     * the chunks on as they arrive to where the value will be read ({@link ValueLink#relay}).
     */
    record ValueHeading(byte[] ref, org.cx.api.Continuation to) implements Message {
    }

    /** Server: these tasks are now in your cache. */
    record Assign(ReadyTask[] tasks) implements Message {
    }

    /** Producer: these tasks ran; apply their effects. */
    record Completed(Completion[] completions) implements Message {
    }

    /** Producer: task {@code id} threw, or could not be decoded; {@code reason} says why. */
    record TaskFailed(TaskId id, String reason) implements Message {
    }

    /** Server: these tasks completed elsewhere; drop them from your cache. */
    record Drop(TaskId[] ids) implements Message {
    }

    /**
     * Server: another producer with an idle worker was given these tasks; drop the ones you have not started and
     * say which with {@link Released}. Started ones run on: eager scheduling lets the faster copy win.
     */
    record Revoke(TaskId[] ids) implements Message {
    }

    /** Producer: these tasks were dropped unstarted after a {@link Revoke}; I no longer hold them. */
    record Released(TaskId[] ids) implements Message {
    }

    /**
     * Producer, unasked: I hold these tasks no longer (I am stopping, or my owner paused me); give them to others.
     * Ones I had started are abandoned: a completion of them from me would be refused.
     */
    record GiveBack(TaskId[] ids) implements Message {
    }

    /**
     * Server: keep copies of these unready tasks; you hold a task whose successor each is. Their inputs so far
     * follow in {@link Inputs}.
     */
    record Keep(TaskEnvelope[] tasks) implements Message {
    }

    /**
     * Server: values other producers sent to unready tasks you keep a copy of ({@link Completion#keeps}). Run such
     * a task yourself only if your own value completes it; if one of these does, the server hands it out.
     */
    record Inputs(ValueEnvelope[] values) implements Message {
    }

    /** Server: stop keeping these tasks (they were stored by a completion of yours that came second). */
    record Unkeep(TaskId[] ids) implements Message {
    }

    /**
     * Server: {@code computation} now runs here beside any others (a producer caches its own children deeper only
     * while one runs, decision 0027).
     */
    record ComputationStarted(long computation) implements Message {
    }

    /** Server: {@code computation} is over; drop its tasks and classes. */
    record ComputationEnded(long computation) implements Message {
    }

    /**
     * The task these large values were inputs of has completed, and its completion is on every mirror: whoever holds
     * them may let them go. A connection passes it on only to an end that holds one of them ({@link PeerValues}).
     *
     * @param refs the values' references ({@link ValueRef#bytes()})
     */
    record ValuesReleased(byte[][] refs) implements Message {
    }

    // ------------------------------------------------------------ between task servers (production network)

    /** A new server asks to join the network. Sent to any member; members other than the root answer Redirect. */
    record Join(String name, String address, String jmx) implements Message {
    }

    /** Ask {@code address} instead: it is the primary root. */
    record Redirect(String address) implements Message {
    }

    /**
     * The network as the primary root sees it at {@code epoch}: members by tree position (0 primary root, 1 secondary
     * root, then the B-ary tree in breadth-first order), and for each failed server the server that took over its
     * tasks ({@code forwardFrom[i]} now lives at {@code forwardTo[i]}).
     */
    record Topology(long epoch, int branching, int yourId, Member[] members, int[] forwardFrom, int[] forwardTo)
            implements Message {
    }

    /** One server of a {@link Topology}. */
    record Member(int id, String name, String address, String jmx) {
    }

    /**
     * A member is alive (to the primary root every period; the primary root sends it to the secondary). Carries what
     * {@code cx network status} prints, the ids of the servers whose complete mirror copy the sender holds, the
     * last batch applied to each of those copies, and {@code committedEpoch}: the latest topology whose changes here
     * (a take-over, a new mirror group) are all on the sender's mirrors.
     */
    record Heartbeat(int from, long epoch, int[] replicas, long[] replicaSeqs, int ready, int fresh, int tasks,
                     int producers, long completed, long committedEpoch) implements Message {
    }

    /** The root's answer to a {@link Heartbeat}: it is alive too, at {@code epoch}. */
    record HeartbeatAck(long epoch) implements Message {
    }

    /** The secondary root {@code from} cannot hear the primary: can you? (It takes over only if most cannot.) */
    record RootQuery(int from, long epoch) implements Message {
    }

    /** A member's answer to a {@link RootQuery}: whether it, too, has lost the primary root. */
    record RootSeen(int from, boolean silent) implements Message {
    }

    /**
     * You were declared failed (you were silent or unreachable for longer than the failure timeout) and your tasks
     * were taken over: stop, so that nothing is applied twice.
     */
    record Evicted(String reason) implements Message {
    }

    /**
     * A batch of changes to server {@code from}'s task state, number {@code seq}, for its mirror group to apply in
     * order. A snapshot replaces the copy wholesale. {@code awaited}: the sender holds output (a routed message, a
     * consumer's answer) until the batch is acknowledged, so acknowledge it at once; otherwise the acknowledgement
     * may wait for the mirror's next periodic one, which covers every batch received before it. A snapshot too
     * large for one message comes in parts of the same number, all but the last with {@code more}: the mirror
     * applies them together when the last arrives.
     */
    record Mirror(int from, long seq, boolean snapshot, boolean awaited, MirrorOp[] ops, boolean more)
            implements Message {
        /** A batch, or a snapshot in one part. */
        public Mirror(int from, long seq, boolean snapshot, boolean awaited, MirrorOp[] ops) {
            this(from, seq, snapshot, awaited, ops, false);
        }
    }

    /** The mirror copy of {@code from} now includes batch {@code seq}. */
    record MirrorAck(int from, int by, long seq) implements Message {
    }

    /**
     * Server {@code failed} failed with no complete copy of its tasks on any live server (it and its whole mirror
     * group failed before the copy was re-made elsewhere): computations that originated at the receiver fail.
     */
    record StateLost(int failed, String reason) implements Message {
    }

    /** {@code from}'s new mirror group has its copy: the receiver may drop the one it holds. */
    record MirrorRelease(int from) implements Message {
    }

    /**
     * Diffusion: {@code from} has {@code fresh} unassigned ready tasks, its producers asked for {@code demand} more
     * (idle workers and prefetch), and they have {@code workers} workers in all. Of its idle workers that no fresh
     * task there can serve, it asks the receiver to feed {@code need}: its share of them, so that the neighbours
     * do not all answer the same idle workers in full. {@code queued}: tasks prefetched by its producers and not
     * started, which it could revoke to feed the receiver's idle workers. {@code beyond}: idle workers of its other
     * neighbours that it cannot feed itself, the receiver's share of them; the receiver feeds them through
     * {@code from} but does not pass them on (need travels two hops at most). {@code farHops}, {@code farIdle}: the
     * nearest idle workers {@code from} heard of, other than through the receiver, that it cannot feed itself: how
     * many hops from {@code from} (0: its own) and how many; {@link #NOWHERE} hops and 0 idle if none. Tasks too far
     * for need to reach them follow these downhill.
     */
    record Load(int from, int fresh, int demand, int need, int workers, int queued, int beyond, int farHops,
                int farIdle) implements Message {
        /** {@link #farHops} when no idle workers are known. */
        public static final int NOWHERE = Integer.MAX_VALUE;

        /** A load that knows of no idle workers beyond the two hops need travels. */
        public Load(int from, int fresh, int demand, int need, int workers, int queued, int beyond) {
            this(from, fresh, demand, need, workers, queued, beyond, NOWHERE, 0);
        }
    }

    /**
     * Exactly-once message {@code seq} on the channel from server {@code from} to server {@code to}, sent by a server
     * that knew the network at {@code epoch}: a receiver that knows an older one waits for the newer topology (it
     * may be about to take over the tasks the message is for).
     */
    record Routed(int from, int to, long seq, RoutedPayload payload, long epoch) implements Message {
        /** Sent without a view of the network (epoch 0): never waits. */
        public Routed(int from, int to, long seq, RoutedPayload payload) {
            this(from, to, seq, payload, 0);
        }
    }

    /** The receiver of channel {@code from → to} has applied everything up to {@code seq}. */
    record RoutedAck(int from, int to, long seq) implements Message {
    }

    /** Observer: describe the network. */
    record NetworkQuery() implements Message {
    }

    /**
     * The primary root's view of the network at {@code epoch}. {@code tolerant}: every server's mirror group holds
     * a complete copy of its state, as of the members' last heartbeats, so the network survives another failure.
     */
    record NetworkStatus(long epoch, int branching, boolean tolerant, ServerStatus[] servers) implements Message {
    }

    /** One server in a {@link NetworkStatus}. */
    record ServerStatus(int id, String name, String address, int position, int[] mirrorGroup, int[] copiesHeld,
                        int ready, int fresh, int tasks, int producers, long completed, String jmx) {
    }
}
