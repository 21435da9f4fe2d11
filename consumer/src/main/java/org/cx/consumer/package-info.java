/**
 * The consumer library: connect to "the" task server, submit a root task, receive {@code processResult}.
 *
 * <h2>Submitting a computation</h2>
 * <ol>
 *   <li>The root task is encoded with the computation's codec and sent as Submit with a request id.</li>
 *   <li>The server stores it under a fresh computation id and answers Accepted; the id is what a consumer keeps to
 *       collect the result later, from this or another connection ({@link org.cx.consumer.Consumer#collect}).</li>
 *   <li>The server sends Result (or Failed) when the value reaches the final continuation; the consumer decodes it,
 *       calls {@code processResult}, completes the future, and tells the server Collected.</li>
 * </ol>
 */
package org.cx.consumer;
