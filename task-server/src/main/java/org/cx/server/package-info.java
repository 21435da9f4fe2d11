/**
 * The task server (paper §4.1): the scheduling state of an isolated cluster and its network front end.
 *
 * <p>{@link org.cx.server.Scheduler} is a single-threaded state machine with no I/O: the conductor feeds it decoded
 * messages and it answers through an {@link org.cx.server.Outbox}. {@link org.cx.server.TaskServerNode} runs it on
 * one Netty event loop that also owns every connection, so no state is shared between threads.
 *
 * <h2>Scheduling invariants</h2>
 * <ol>
 *   <li>Every stored, not yet completed task of a computation is in that computation's task map, either unready
 *       (waiting for inputs) or ready. Ready tasks are in the {@link org.cx.server.ReadyHeap}, ordered by how many
 *       producers hold a copy (fewest first), then by priority (highest first), then by age.</li>
 *   <li>A completion is applied only if its task is in the map and ready: then its spawned tasks, its values and
 *       its removal are applied together, in one step of the state machine. Any later completion of the same task
 *       finds it gone and is discarded. Hence effects apply exactly once however often the task ran.</li>
 *   <li>A spawned task whose id is already present, and a value for an input that already has one, are discarded.
 *       A value for a task that is gone was for a task that already completed, and is discarded too.</li>
 *   <li>For each task the server knows which producers hold a copy. When it completes, the others are told to drop
 *       it; when a producer leaves, its copies are released and those tasks become fresh again.</li>
 *   <li>A producer with a worker idle right now may be handed a task others hold (eager scheduling); prefetch
 *       requests only ever get tasks no producer holds.</li>
 * </ol>
 */
package org.cx.server;
