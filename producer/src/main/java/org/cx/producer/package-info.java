/**
 * The producer (paper §4.1): a proxy with a task cache, prefetch, and W worker threads.
 *
 * <h2>Flow</h2>
 * <ol>
 *   <li>Connect and say Hello as a producer with W workers.</li>
 *   <li>Ask for tasks with credit: {@link org.cx.producer.PrefetchPolicy} decides how many tasks to keep cached
 *       beyond those running, from the measured task time and round-trip time, so that a worker finishing a task
 *       finds the next one already cached (the paper's design goal).</li>
 *   <li>Assigned tasks are decoded on arrival (through their computation's class loader) and go into the
 *       {@link org.cx.producer.TaskCache}'s ready heap, ordered by {@link org.cx.api.Task#isHigherPriority}.</li>
 *   <li>Workers take the best cached task, run it, and hand the completion (its effects) to the connection's event
 *       loop, which sends completions in batches together with the next request.</li>
 *   <li>The server says Drop when a cached task completed elsewhere, and ComputationEnded when a computation is
 *       over; both remove tasks that have not started.</li>
 * </ol>
 */
package org.cx.producer;
