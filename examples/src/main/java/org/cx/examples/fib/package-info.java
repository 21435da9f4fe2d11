/**
 * The paper's load generator (§5): F(n) as a DAG of decomposition, boundary and composition tasks, each with an
 * optional synthetic load. T(n) = 3·F(n+1) − 2 tasks, critical path 2n − 1 tasks.
 */
package org.cx.examples.fib;
