package org.cx.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.cx.api.Continuation;
import org.cx.api.TaskId;
import org.cx.testing.Seeds;
import org.cx.wire.TaskEnvelope;
import org.junit.jupiter.api.Test;

/** Who gets the next producer: users by weight, a user's computations by priority then share, tasks by the paper. */
class ReadyQueuesTest {
    private final Map<Long, ComputationState> computations = new HashMap<>();
    private final ReadyQueues ready = new ReadyQueues(computations::get);
    private final ProducerState producer = new ProducerState(1, "p", 1_000_000);
    private long seq;

    private ComputationState computation(long id, String owner, int priority) {
        ComputationState c = new ComputationState(id, 0, null);
        c.owner = owner;
        c.priority = priority;
        computations.put(id, c);
        return c;
    }

    private void addTasks(ComputationState c, int n) {
        for (int i = 0; i < n; i++) {
            TaskEnvelope env = new TaskEnvelope(TaskId.root(c.id).child((int) seq), Continuation.CONSUMER, 0, 0, false,
                    new byte[0]);
            ready.add(new TaskEntry(env, seq++));
        }
    }

    /** Hands the next fresh task to a producer, as the scheduler does; returns its computation. */
    private long giveNext() {
        TaskEntry e = ready.peek();
        e.addHolder(producer);
        ready.update(e);
        ready.used(e);
        return e.envelope.id().computation();
    }

    @Test
    void aNewcomerGoesFirstUntilItsUseCatchesUpAndUseDecays() {
        ComputationState big = computation(1, "", 0);
        ComputationState small = computation(2, "", 0);
        addTasks(big, 100);
        giveNext();
        giveNext();
        giveNext(); // the big one has used 3 tasks' time before the small one arrives
        addTasks(small, 10);
        assertEquals(2, giveNext(), "the newcomer has used least");
        assertEquals(2, giveNext());
        assertEquals(2, giveNext());
        assertEquals(3, ready.held(1));
        assertEquals(3, ready.held(2));
        assertEquals(1, giveNext(), "at equal use the older computation goes first");
        assertEquals(2, giveNext());
        ready.tick(ReadyQueues.HALF_LIFE_NANOS * 10); // much later: both have used about nothing
        ComputationState third = computation(3, "", 0);
        addTasks(third, 10);
        assertEquals(3, giveNext(), "the newcomer first");
        assertEquals(1, giveNext(), "then a use long past hardly counts against the others");
        assertEquals(2, giveNext());
        assertEquals(3, giveNext(), "and all three take turns");
    }

    @Test
    void usersShareByWeightWhateverTheirComputationsPriorities() {
        ready.weights(user -> user.equals("alice") ? 3 : 1);
        ComputationState alice = computation(1, "alice", 0);
        ComputationState bob = computation(2, "bob", 1_000);
        addTasks(alice, 100);
        addTasks(bob, 100);
        Map<Long, Integer> given = new HashMap<>();
        for (int i = 0; i < 40; i++) {
            given.merge(giveNext(), 1, Integer::sum);
        }
        assertEquals(30, given.get(1L), "alice has weight 3: " + given);
        assertEquals(10, given.get(2L), "bob's priority does not count against another user: " + given);
    }

    @Test
    void aUsersHigherPriorityComputationGoesFirstAndAChangeTakesEffect() {
        ComputationState low = computation(1, "alice", 0);
        ComputationState high = computation(2, "alice", 5);
        addTasks(low, 5);
        addTasks(high, 5);
        for (int i = 0; i < 5; i++) {
            assertEquals(2, giveNext(), "priority 5 before priority 0, however much it has used");
        }
        assertEquals(1, giveNext(), "then the lower priority, once the higher has no fresh task");
        ComputationState later = computation(3, "alice", 0);
        addTasks(later, 5);
        assertEquals(3, giveNext(), "equal priorities: the one that has used less goes first");
        later.priority = -1;
        ready.reprioritized(3);
        assertEquals(1, giveNext(), "after the change computation 3 ranks below computation 1");
        assertEquals(1, giveNext());
    }

    @Test
    void countsFollowEveryChangeAndEmptyComputationsLeave() {
        long seed = Seeds.seed("ReadyQueuesTest.countsFollowEveryChangeAndEmptyComputationsLeave");
        SplittableRandom random = new SplittableRandom(seed);
        java.util.List<TaskEntry> live = new java.util.ArrayList<>();
        for (long id = 1; id <= 4; id++) {
            computation(id, id % 2 == 0 ? "alice" : "bob", random.nextInt(3));
        }
        for (int step = 0; step < 2_000; step++) {
            int action = random.nextInt(3);
            if (action == 0 || live.isEmpty()) {
                long id = 1 + random.nextInt(4);
                TaskEnvelope env = new TaskEnvelope(TaskId.root(id).child((int) seq), Continuation.CONSUMER, 0, 0,
                        false, new byte[0]);
                TaskEntry e = new TaskEntry(env, seq++);
                ready.add(e);
                live.add(e);
            } else if (action == 1) {
                TaskEntry e = ready.peek();
                if (e != null) {
                    e.addHolder(producer);
                    ready.update(e);
                }
            } else {
                TaskEntry e = live.remove(random.nextInt(live.size()));
                ready.remove(e);
            }
            long fresh = live.stream().filter(e -> e.holderCount() == 0).count();
            assertEquals(live.size(), ready.size(), "seed " + seed);
            assertEquals(fresh, ready.freshCount(), "seed " + seed);
            for (long id = 1; id <= 4; id++) {
                long cid = id;
                assertEquals(live.stream().filter(e -> e.envelope.id().computation() == cid && e.holderCount() > 0)
                        .count(), ready.held(id), "seed " + seed);
            }
            if (fresh == 0) {
                assertNull(ready.peek(), "seed " + seed);
            } else {
                assertTrue(ready.peek().holderCount() == 0, "seed " + seed);
            }
        }
    }
}
