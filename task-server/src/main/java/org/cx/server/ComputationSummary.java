package org.cx.server;

/**
 * What a finished computation cost.
 *
 * @param tasks      distinct tasks completed
 * @param executions every completion received, duplicates included
 * @param t1Nanos    sum over distinct tasks of the execution time of the completion that was applied
 * @param wallNanos  from submission to result
 */
public record ComputationSummary(long tasks, long executions, long t1Nanos, long wallNanos) {
}
