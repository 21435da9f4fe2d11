package org.cx.examples.fib;

import org.cx.api.Application;
import org.cx.api.Computation;
import org.cx.api.TaskServer;

/**
 * The Fibonacci example as an application jar: {@code cx submit examples/target/examples-*-fib-app.jar N [LEAF_MS]}
 * computes F(N), each leaf sleeping {@code LEAF_MS} milliseconds (default 0), and checks the answer.
 */
public final class FibApp implements Application {

    @Override
    public int run(TaskServer server, String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: cx submit fib-app.jar N [LEAF_MS]   (F(N), N in 0..60; each leaf sleeps LEAF_MS)");
            return 2;
        }
        int n;
        double leafMs;
        try {
            n = Integer.parseInt(args[0]);
            leafMs = args.length > 1 ? Double.parseDouble(args[1]) : 0;
        } catch (NumberFormatException e) {
            System.err.println("N must be a whole number in 0..60 and LEAF_MS a number of milliseconds, got "
                    + String.join(" ", args));
            return 2;
        }
        if (n < 0 || n > 60 || !(leafMs >= 0)) {
            System.err.println("N must be in 0..60 and LEAF_MS at least 0, got " + String.join(" ", args));
            return 2;
        }
        Load load = leafMs > 0 ? Load.ofMillis(Load.Kind.SLEEP, 0, leafMs, 0) : Load.NONE;
        Computation<Long> run = server.submit(new Fib(n, load));
        long value = run.result().get();
        System.out.println("F(" + n + ") = " + value);
        return value == Fib.value(n) ? 0 : 1;
    }
}
