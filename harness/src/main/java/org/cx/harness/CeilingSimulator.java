package org.cx.harness;

import java.util.PriorityQueue;

/**
 * The limit to compare against: a zero-overhead greedy list schedule of the F(n) DAG on {@code workers} workers.
 * Whenever a worker is free and a task is ready it starts at once, in the same priority order the runtime uses
 * (compositions first, then larger subproblems, then oldest). Communication costs nothing. Returns the efficiency
 * (T1 / workers) / makespan of that schedule.
 *
 * <p>Workers may differ in speed (paper §5, mixed processor types): a worker of speed s runs a task in 1/s of its
 * reference time, and a ready task goes to the fastest free worker. The efficiency is then measured against the
 * paper's composite base case, the mean over workers of T1 / s.
 */
public final class CeilingSimulator {

    private CeilingSimulator() {
    }

    /**
     * Result of one simulation.
     *
     * @param t1        the sum of the tasks' reference times: the time on one worker of speed 1
     * @param makespan  when the last task finished
     * @param workers   how many workers ran the schedule
     * @param tasks     tasks run
     * @param composite the composite base case: the mean over workers of t1 / speed (t1 when all have speed 1)
     * @param idleInitial     worker time before each worker's first task, summed (the start-up transient)
     * @param idleTermination worker time after each worker's last task until the makespan, summed
     * @param idleTotal       all worker time not spent running a task: workers × makespan − busy time
     */
    public record Schedule(double t1, double makespan, int workers, long tasks, double composite,
                           double idleInitial, double idleTermination, double idleTotal) {
        public double efficiency() {
            return makespan == 0 ? 1.0 : (composite / workers) / makespan;
        }

        /** The start-up transient's share of all idle time (0..1): what even a perfect runtime would show. */
        public double initialShare() {
            return idleTotal <= 0 ? 0 : idleInitial / idleTotal;
        }

        /**
         * The start-up idle time for a run whose composite base case took {@code runT1} (any unit; the result is in
         * the same): the schedule's own start-up idle scaled by {@code runT1 / composite}.
         */
        public double initialIdleAt(double runT1) {
            return composite <= 0 ? 0 : idleInitial * runT1 / composite;
        }

        /** The termination transient's share of all idle time (0..1). */
        public double terminationShare() {
            return idleTotal <= 0 ? 0 : idleTermination / idleTotal;
        }
    }

    private static final int DECOMPOSE = 0;
    private static final int LEAF = 1;
    private static final int COMPOSE = 2;

    /** A node of the simulated DAG. */
    private static final class Node {
        final int kind;
        final int n;
        final Node successor;
        final long seq;
        int missing;
        double finish;
        int worker;

        Node(int kind, int n, Node successor, long seq) {
            this.kind = kind;
            this.n = n;
            this.successor = successor;
            this.seq = seq;
            this.missing = kind == COMPOSE ? 2 : 0;
        }
    }

    public static Schedule simulate(int n, int workers, double decompose, double leaf, double compose) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1");
        }
        double[] speeds = new double[workers];
        java.util.Arrays.fill(speeds, 1.0);
        return simulate(n, speeds, decompose, leaf, compose);
    }

    /** The same schedule on workers of the given speeds (1.0 = reference). */
    public static Schedule simulate(int n, double[] speeds, double decompose, double leaf, double compose) {
        int workers = speeds.length;
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1");
        }
        double inverseSum = 0;
        for (double s : speeds) {
            if (!(s > 0)) {
                throw new IllegalArgumentException("worker speeds must be positive: " + s);
            }
            inverseSum += 1 / s;
        }
        // Free workers, fastest first (lowest index among equals, so equal speeds behave as one pool).
        PriorityQueue<Integer> free = new PriorityQueue<>((a, b) -> {
            int c = Double.compare(speeds[b], speeds[a]);
            return c != 0 ? c : Integer.compare(a, b);
        });
        for (int i = 0; i < workers; i++) {
            free.add(i);
        }
        PriorityQueue<Node> ready = new PriorityQueue<>((a, b) -> {
            int c = Integer.compare(a.kind == COMPOSE ? 0 : 1, b.kind == COMPOSE ? 0 : 1);
            if (c != 0) {
                return c;
            }
            c = Integer.compare(b.n, a.n);
            return c != 0 ? c : Long.compare(a.seq, b.seq);
        });
        PriorityQueue<Node> running = new PriorityQueue<>((a, b) -> Double.compare(a.finish, b.finish));
        long seq = 0;
        ready.add(new Node(n < 2 ? LEAF : DECOMPOSE, n, null, seq++));
        double now = 0;
        double t1 = 0;
        double busy = 0;
        long tasks = 0;
        double[] firstStart = new double[workers];
        double[] lastEnd = new double[workers];
        java.util.Arrays.fill(firstStart, -1);
        while (!ready.isEmpty() || !running.isEmpty()) {
            while (!free.isEmpty() && !ready.isEmpty()) {
                Node task = ready.poll();
                double duration = switch (task.kind) {
                    case DECOMPOSE -> decompose;
                    case LEAF -> leaf;
                    default -> compose;
                };
                task.worker = free.poll();
                task.finish = now + duration / speeds[task.worker];
                if (firstStart[task.worker] < 0) {
                    firstStart[task.worker] = now;
                }
                lastEnd[task.worker] = task.finish;
                busy += duration / speeds[task.worker];
                t1 += duration;
                tasks++;
                running.add(task);
            }
            Node done = running.poll();
            now = done.finish;
            free.add(done.worker);
            if (done.kind == DECOMPOSE) {
                Node sum = new Node(COMPOSE, done.n, done.successor, seq++);
                ready.add(new Node(done.n - 1 < 2 ? LEAF : DECOMPOSE, done.n - 1, sum, seq++));
                ready.add(new Node(done.n - 2 < 2 ? LEAF : DECOMPOSE, done.n - 2, sum, seq++));
            } else if (done.successor != null && --done.successor.missing == 0) {
                ready.add(done.successor);
            }
        }
        double initial = 0;
        double termination = 0;
        for (int w = 0; w < workers; w++) {
            if (firstStart[w] < 0) {
                initial += now; // never ran a task: idle from start to end, counted as start-up
            } else {
                initial += firstStart[w];
                termination += now - lastEnd[w];
            }
        }
        return new Schedule(t1, now, workers, tasks, t1 * inverseSum / workers, initial, termination,
                workers * now - busy);
    }
}
