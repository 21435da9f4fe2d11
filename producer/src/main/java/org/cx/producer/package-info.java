/**
 * The producer (paper §4.1): a proxy with a task cache, prefetch, and W worker threads.
 *
 * <h2>Flow</h2>
 * <ol>
 *   <li>Connect and say Hello as a producer with W workers.</li>
 *   <li>Ask for tasks with credit: {@link org.cx.producer.PrefetchPolicy} decides how many tasks to keep cached
 *       beyond those running, from the measured task time and round-trip time, so that a worker finishing a task
 *       finds the next one already cached (the paper's design goal).</li>
 *   <li>Assigned tasks go into the {@link org.cx.producer.TaskCache}'s ready heap still encoded, ordered by the
 *       {@link org.cx.api.Task#priority()} read when they were stored.</li>
 *   <li>Workers take the best cached task, have it decoded and run where the producer's
 *       {@link org.cx.producer.TaskBox} says (a worker process of their own, sandboxed where the machine allows it,
 *       or their own thread), and hand the completion (its effects) to the connection's event loop, which sends
 *       completions in batches together with the next request.</li>
 *   <li>The server says Drop when a cached task completed elsewhere, and ComputationEnded when a computation is
 *       over; both remove tasks that have not started.</li>
 * </ol>
 */
package org.cx.producer;
