package org.cx.consumer;

import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.cx.api.ComputationFailedException;
import org.cx.api.spi.Calls;

/**
 * An {@link java.util.concurrent.ExecutorService} backed by a CX network: each callable (or runnable) runs as a
 * computation of one task on a producer, and its result or exception comes back through the returned future as the
 * JDK's executors give them ({@link ExecutionException} with the callable's own exception as its cause, when the
 * consumer can load that exception's class). {@code Future.cancel} cancels the computation on the network.
 *
 * <p>A callable travels as a task's field does: it must be a class (a record, say) whose fields may travel, not a
 * lambda; one that cannot is refused at {@code submit} with the class and field named. Its class's jar, when it was
 * loaded from one ({@code cx submit}), goes with it.
 */
public final class CxExecutor extends AbstractExecutorService {
    private final Consumer consumer;
    private final boolean ownsConsumer;
    private final Set<Remote<?>> outstanding = ConcurrentHashMap.newKeySet();
    private volatile boolean shutdown;

    private CxExecutor(Consumer consumer, boolean ownsConsumer) {
        this.consumer = consumer;
        this.ownsConsumer = ownsConsumer;
    }

    /** An executor over {@code consumer}'s connection; closing the executor leaves the consumer open. */
    public static CxExecutor on(Consumer consumer) {
        return new CxExecutor(consumer, false);
    }

    /**
     * An executor connected to the server at {@code hostPort} with this user's local credential; it closes its
     * connection once shut down and every task it ran has ended.
     */
    public static CxExecutor connect(String hostPort) throws java.io.IOException {
        return new CxExecutor(Consumer.connect(hostPort), true);
    }

    // ---------------------------------------------------------------- running

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new Remote<>(callable);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new Remote<>(new Calls.RunnableCall<>(runnable, value));
    }

    /** Submits {@code command} to the network; a {@link #submit} future is started, anything else wrapped. */
    @Override
    public void execute(Runnable command) {
        (command instanceof Remote<?> remote ? remote : new Remote<>(new Calls.RunnableCall<>(command, null))).run();
    }

    /** The first callable to succeed, the others cancelled; as {@link AbstractExecutorService}, but remote. */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        try {
            return invokeAny(tasks, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot happen without a timeout", e);
        }
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (tasks.isEmpty()) {
            throw new IllegalArgumentException("no tasks");
        }
        List<Remote<T>> futures = new ArrayList<>();
        CompletableFuture<T> first = new CompletableFuture<>();
        try {
            for (Callable<T> task : tasks) {
                Remote<T> f = new Remote<>(task);
                futures.add(f);
                f.run();
                f.outcome.whenComplete((value, failure) -> {
                    if (failure == null) {
                        first.complete(value);
                    } else if (futures.size() == tasks.size()
                            && futures.stream().allMatch(other -> other.outcome.isCompletedExceptionally())) {
                        first.completeExceptionally(failure);
                    }
                });
            }
            try {
                return first.get(timeout, unit);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof ExecutionException inner ? inner : e;
            }
        } finally {
            futures.forEach(f -> f.cancel(true));
        }
    }

    /**
     * Calls the public static method {@code method} of {@code type} with {@code args} on a producer, as a Ninf call
     * calls a remote function; {@code type}'s jar goes with it when it was loaded from one.
     */
    public Future<Object> call(Class<?> type, String method, Object... args) {
        Calls.StaticCall.find(type, method, args.length); // says what is wrong here, before anything travels
        return submit(new Calls.StaticCall(type, method, args));
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void shutdown() {
        shutdown = true;
        closeIfDone();
    }

    /** Cancels every task still running; none waits here to start, so the list is empty. */
    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        List.copyOf(outstanding).forEach(f -> f.cancel(true));
        closeIfDone();
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && outstanding.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!isTerminated()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            List<Remote<?>> running = List.copyOf(outstanding);
            if (running.isEmpty()) { // not shut down: only time can pass
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
                continue;
            }
            try {
                running.getFirst().outcome.handle((v, e) -> null).get(left, TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // ended one way or another, or time is up: look again
            }
        }
        return true;
    }

    private void closeIfDone() {
        if (ownsConsumer && isTerminated()) {
            consumer.close();
        }
    }

    // ---------------------------------------------------------------- one remote call

    /**
     * The exception a call threw, as its own class where {@code callable}'s loader has it and it takes a message;
     * otherwise a {@link ComputationFailedException} naming it. Its stack trace is the producer's.
     */
    static Throwable rebuild(Calls.Outcome outcome, Callable<?> callable) {
        Throwable t;
        try {
            Class<?> type = Class.forName(outcome.exceptionClass(), false, callable.getClass().getClassLoader());
            Constructor<?> withMessage = type.getConstructor(String.class);
            t = (Throwable) withMessage.newInstance(outcome.message());
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            t = new ComputationFailedException(0, null, outcome.exceptionClass() + ": " + outcome.message());
        }
        t.setStackTrace(outcome.stackTrace());
        return t;
    }

    /** A callable's future: {@link #run} submits it to the network and returns at once. */
    private final class Remote<T> implements RunnableFuture<T> {
        private final Callable<T> callable;
        final CompletableFuture<T> outcome = new CompletableFuture<>();
        private volatile Consumer.Pending<Calls.Outcome> computation;

        Remote(Callable<T> callable) {
            this.callable = callable;
        }

        @Override
        public void run() {
            if (shutdown) {
                throw new RejectedExecutionException("this executor is shut down");
            }
            if (computation != null || outcome.isDone()) {
                return;
            }
            outstanding.add(this);
            try {
                computation = consumer.submit(new Calls.CallTask<>(callable));
            } catch (RuntimeException e) {
                outstanding.remove(this);
                throw new RejectedExecutionException(e.getMessage(), e);
            }
            computation.result().whenComplete((result, failure) -> {
                if (failure != null) {
                    outcome.completeExceptionally(new ExecutionException(failure.getMessage(), failure));
                } else if (result.failed()) {
                    outcome.completeExceptionally(new ExecutionException(rebuild(result, callable)));
                } else {
                    @SuppressWarnings("unchecked")
                    T value = (T) result.value();
                    outcome.complete(value);
                }
                outstanding.remove(this);
                if (shutdown) {
                    closeIfDone();
                }
            });
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = outcome.completeExceptionally(new CancellationException("cancelled"));
            Consumer.Pending<Calls.Outcome> c = computation;
            if (cancelled && c != null) {
                c.cancel(); // frees the producers as cx job cancel does; its answer is not awaited
            }
            return cancelled;
        }

        @Override
        public boolean isCancelled() {
            return outcome.isCancelled() || outcome.isCompletedExceptionally() && outcome.handle(
                    (v, e) -> e instanceof CancellationException).join();
        }

        @Override
        public boolean isDone() {
            return outcome.isDone();
        }

        @Override
        public T get() throws InterruptedException, ExecutionException {
            try {
                return outcome.get();
            } catch (ExecutionException e) {
                throw unwrap(e);
            }
        }

        @Override
        public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            try {
                return outcome.get(timeout, unit);
            } catch (ExecutionException e) {
                throw unwrap(e);
            }
        }

        private static ExecutionException unwrap(ExecutionException e) {
            if (e.getCause() instanceof CancellationException c) {
                throw c;
            }
            return e.getCause() instanceof ExecutionException inner ? inner : e;
        }
    }
}
