package org.cx.examples.dc;

import java.util.List;
import org.cx.api.DivideAndConquer;
import org.cx.api.TaskContext;
import org.cx.examples.fib.Fib;
import org.cx.examples.fib.Load;

/**
 * {@link Fib} in four methods: the same DAG (a leaf per F(0) and F(1), a decomposition and a sum per larger n), the
 * same synthetic loads and the same priorities (bigger subproblems first), built by {@link DivideAndConquer}.
 */
public record FibonacciDc(Load load) implements DivideAndConquer<Integer, Long> {
    @Override
    public boolean isSmall(Integer n) {
        return n < 2;
    }

    @Override
    public Long solve(Integer n, TaskContext context) {
        load.leaf(context.hostSpeed());
        return (long) n;
    }

    @Override
    public List<Integer> split(Integer n, TaskContext context) {
        load.decompose(context.hostSpeed());
        return List.of(n - 1, n - 2);
    }

    @Override
    public Long combine(List<Long> parts, TaskContext context) {
        load.compose(context.hostSpeed());
        return parts.get(0) + parts.get(1);
    }

    @Override
    public long priority(Integer n, int depth) {
        return n;
    }
}
