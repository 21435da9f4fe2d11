package org.cx.consumer;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.cx.wire.Message;

/**
 * A consumer's questions of one kind to its server (cancel, prioritize, diagnose, list), by computation: each asker
 * gets a future, and the server's answer about a computation completes every future asked about it so far.
 * Thread-safe.
 */
final class Questions<T> {
    private final Map<Long, Queue<CompletableFuture<T>>> waiting = new ConcurrentHashMap<>();
    private final Consumer<Message> send;

    /** @param send sends a question to the server the consumer is connected to now */
    Questions(Consumer<Message> send) {
        this.send = send;
    }

    /** Sends {@code question} about {@code computation}; the future completes with the server's answer. */
    CompletableFuture<T> ask(long computation, Message question) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        waiting.computeIfAbsent(computation, k -> new ConcurrentLinkedQueue<>()).add(answer);
        send.accept(question);
        return answer;
    }

    void answer(long computation, T value) {
        var answered = waiting.remove(computation);
        if (answered != null) {
            answered.forEach(f -> f.complete(value));
        }
    }

    void fail(long computation, Throwable why) {
        var answered = waiting.remove(computation);
        if (answered != null) {
            answered.forEach(f -> f.completeExceptionally(why));
        }
    }

    /** The computations asked about and not answered. */
    Set<Long> asked() {
        return Set.copyOf(waiting.keySet());
    }

    /** The connection is gone: no answer will come. */
    void failAll(Throwable why) {
        for (Long computation : List.copyOf(waiting.keySet())) {
            fail(computation, why);
        }
    }
}
