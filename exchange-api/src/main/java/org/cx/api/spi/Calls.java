package org.cx.api.spi;

import java.util.concurrent.Callable;
import org.cx.api.TaskContext;
import org.cx.api.ValueTask;

/**
 * The task an executor's call runs as, and what it sends back: the runtime's side of {@code CxExecutor}, here so
 * that producers, which see only {@code org.cx.api}, can run it. Not for applications.
 */
public final class Calls {
    private Calls() {
    }

    /** A runnable as a callable that returns {@code value}. */
    public record RunnableCall<T>(Runnable runnable, T value) implements Callable<T> {
        @Override
        public T call() {
            runnable.run();
            return value;
        }
    }

    /**
     * A call of a public static method by name, as a Ninf call names a remote function: the class is loaded, where
     * the call runs, from the computation's code (the thread's context class loader); the arguments are already of
     * the method's parameter types.
     */
    public static final class StaticCall implements Callable<Object> {
        private final String className;
        private final String method;
        private final Object[] args;
        /** The class, where the call was made (not sent): its jar goes with the computation. */
        private final transient Class<?> type;

        public StaticCall(Class<?> type, String method, Object... args) {
            this.className = type.getName();
            this.method = method;
            this.args = args.clone();
            this.type = type;
        }

        @Override
        public Object call() throws Exception {
            Class<?> owner = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
            java.lang.reflect.Method m = find(owner, method, args.length);
            try {
                return m.invoke(null, args);
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (e.getCause() instanceof Exception thrown) {
                    throw thrown;
                }
                throw e;
            }
        }

        /** The class whose code the call runs; null once it has travelled. */
        public Class<?> type() {
            return type;
        }

        /** The public static method {@code name} of {@code owner} taking {@code arity} parameters. */
        public static java.lang.reflect.Method find(Class<?> owner, String name, int arity) {
            for (java.lang.reflect.Method m : owner.getMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == arity
                        && java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
                    return m;
                }
            }
            throw new IllegalArgumentException("no public static method " + name + " of " + arity + " parameter"
                    + (arity == 1 ? "" : "s") + " in " + owner.getName());
        }
    }

    /**
     * What a call came to: its value, or its exception's class, message and stack trace (as class, method, file
     * and line, four strings a frame), which travel where the exception object itself might not.
     */
    public record Outcome(Object value, String exceptionClass, String message, String[] frames) {
        public boolean failed() {
            return exceptionClass != null;
        }

        static Outcome of(Throwable t) {
            StackTraceElement[] trace = t.getStackTrace();
            String[] frames = new String[trace.length * 4];
            for (int i = 0; i < trace.length; i++) {
                frames[4 * i] = trace[i].getClassName();
                frames[4 * i + 1] = trace[i].getMethodName();
                frames[4 * i + 2] = trace[i].getFileName();
                frames[4 * i + 3] = Integer.toString(trace[i].getLineNumber());
            }
            return new Outcome(null, t.getClass().getName(), t.getMessage(), frames);
        }

        /** The exception's stack trace, as it was on the producer. */
        public StackTraceElement[] stackTrace() {
            StackTraceElement[] trace = new StackTraceElement[frames.length / 4];
            for (int i = 0; i < trace.length; i++) {
                trace[i] = new StackTraceElement(frames[4 * i], frames[4 * i + 1], frames[4 * i + 2],
                        Integer.parseInt(frames[4 * i + 3]));
            }
            return trace;
        }
    }

    /** The one task of a call's computation: runs the callable, and sends what it came to. */
    public static final class CallTask<T> extends ValueTask<Outcome> {
        private final Callable<T> callable;

        public CallTask(Callable<T> callable) {
            this.callable = callable;
        }

        @Override
        public void execute(TaskContext context) {
            Outcome outcome;
            try {
                outcome = new Outcome(callable.call(), null, null, null);
            } catch (Exception e) {
                outcome = Outcome.of(e);
            }
            context.sendResult(outcome);
        }

        @Override
        public Class<?> codeClass() {
            return switch (callable) {
                case RunnableCall<?> r -> r.runnable().getClass();
                case StaticCall s -> s.type() != null ? s.type() : s.getClass();
                default -> callable.getClass();
            };
        }
    }
}
