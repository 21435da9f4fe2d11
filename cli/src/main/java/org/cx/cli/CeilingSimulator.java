package org.cx.cli;

import java.util.PriorityQueue;

/**
 * The limit to compare against: a zero-overhead greedy list schedule of the F(n) DAG on {@code workers} workers.
 * Whenever a worker is free and a task is ready it starts at once, in the same priority order the runtime uses
 * (compositions first, then larger subproblems, then oldest). Communication costs nothing. Returns the efficiency
 * (T1 / workers) / makespan of that schedule.
 */
public final class CeilingSimulator {

    private CeilingSimulator() {
    }

    /** Result of one simulation. */
    public record Schedule(double t1, double makespan, int workers, long tasks) {
        public double efficiency() {
            return makespan == 0 ? 1.0 : (t1 / workers) / makespan;
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
        long tasks = 0;
        int free = workers;
        while (!ready.isEmpty() || !running.isEmpty()) {
            while (free > 0 && !ready.isEmpty()) {
                Node task = ready.poll();
                double duration = switch (task.kind) {
                    case DECOMPOSE -> decompose;
                    case LEAF -> leaf;
                    default -> compose;
                };
                task.finish = now + duration;
                t1 += duration;
                tasks++;
                running.add(task);
                free--;
            }
            Node done = running.poll();
            now = done.finish;
            free++;
            if (done.kind == DECOMPOSE) {
                Node sum = new Node(COMPOSE, done.n, done.successor, seq++);
                ready.add(new Node(done.n - 1 < 2 ? LEAF : DECOMPOSE, done.n - 1, sum, seq++));
                ready.add(new Node(done.n - 2 < 2 ? LEAF : DECOMPOSE, done.n - 2, sum, seq++));
            } else if (done.successor != null && --done.successor.missing == 0) {
                ready.add(done.successor);
            }
        }
        return new Schedule(t1, now, workers, tasks);
    }
}
