package org.cx.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The conductor of one server: its clock, and all the work it does other than answering a message, from one duty
 * cycle. Periodic duties (heartbeats, diffusion, the look for late tasks, resends, expiry), one-shot timers (a
 * delayed report, a join's retry) and commands to itself (a message routed to a task it took over) run in
 * {@link #doWork}; after them, and after every burst of messages, the same {@link #endOfBurst} work sends what they
 * produced. Single-threaded: everything runs on the server's event loop, or on the simulator's one thread.
 *
 * <p>The clock and the wake-up are passed in: on Netty, {@code System::nanoTime} and a timer on the event loop; in a
 * simulation, a virtual clock that jumps to {@link #nextDueNanos}. No duty reads the time any other way.
 */
final class DutyCycle {

    private final LongSupplier clock;
    /** Asks the driver to call {@link #doWork} at (or soon after) the given time. */
    private final LongConsumer wakeAt;
    private final List<Periodic> periodic = new ArrayList<>();
    private final PriorityQueue<OneShot> oneShots = new PriorityQueue<>();
    private final ArrayDeque<Runnable> commands = new ArrayDeque<>();
    private Runnable endOfBurst = () -> { };
    private long oneShotsAdded;

    private static final class Periodic {
        final long periodNanos;
        final Runnable duty;
        long dueNanos;

        Periodic(long periodNanos, Runnable duty, long dueNanos) {
            this.periodNanos = periodNanos;
            this.duty = duty;
            this.dueNanos = dueNanos;
        }
    }

    /** Ordered by due time, then by the order they were added. */
    private record OneShot(long dueNanos, long order, Runnable work) implements Comparable<OneShot> {
        @Override
        public int compareTo(OneShot o) {
            int byTime = Long.compare(dueNanos, o.dueNanos);
            return byTime != 0 ? byTime : Long.compare(order, o.order);
        }
    }

    DutyCycle(LongSupplier clock, LongConsumer wakeAt) {
        this.clock = clock;
        this.wakeAt = wakeAt;
    }

    /** The server's clock, in nanoseconds (an arbitrary origin, as {@code System.nanoTime}). */
    long now() {
        return clock.getAsLong();
    }

    /** What every burst ends with: the batch to the mirrors, the messages to producers and servers. */
    void endOfBurstDoes(Runnable work) {
        this.endOfBurst = work;
    }

    /** Runs {@code duty} every {@code periodNanos}, the first time one period from now. */
    void every(long periodNanos, Runnable duty) {
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("a period must be positive, got " + periodNanos + " ns");
        }
        Periodic p = new Periodic(periodNanos, duty, now() + periodNanos);
        periodic.add(p);
        wakeAt.accept(p.dueNanos);
    }

    /** Runs {@code work} once, {@code delayNanos} from now. */
    void after(long delayNanos, Runnable work) {
        OneShot shot = new OneShot(now() + Math.max(0, delayNanos), oneShotsAdded++, work);
        oneShots.add(shot);
        wakeAt.accept(shot.dueNanos);
    }

    /** Runs {@code command} in the next cycle, after the message being handled now: a message to itself. */
    void soon(Runnable command) {
        commands.add(command);
        wakeAt.accept(now());
    }

    /** When {@link #doWork} has something to do next. */
    long nextDueNanos() {
        if (!commands.isEmpty()) {
            return now();
        }
        long next = oneShots.isEmpty() ? Long.MAX_VALUE : oneShots.peek().dueNanos;
        for (Periodic p : periodic) {
            next = Math.min(next, p.dueNanos);
        }
        return next;
    }

    /**
     * One duty cycle at the current time: commands to itself, due one-shots and due periodic duties, in that
     * order, then {@link #endOfBurst} if any ran. A periodic duty that fell behind (the process was paused) runs once
     * and is due again one period from now. Returns how many pieces of work ran.
     */
    int doWork() {
        long now = now();
        int done = 0;
        for (int n = commands.size(); n > 0; n--) { // commands added meanwhile wait for the next cycle
            commands.poll().run();
            done++;
        }
        while (!oneShots.isEmpty() && oneShots.peek().dueNanos <= now) {
            oneShots.poll().work.run();
            done++;
        }
        for (Periodic p : periodic) {
            if (p.dueNanos <= now) {
                long next = p.dueNanos + p.periodNanos;
                p.dueNanos = next > now ? next : now + p.periodNanos; // behind: no burst of catch-up runs
                p.duty.run();
                done++;
            }
        }
        if (done > 0) {
            endOfBurst();
        }
        return done;
    }

    /** The work that follows every burst of messages and every duty cycle. */
    void endOfBurst() {
        endOfBurst.run();
    }
}
