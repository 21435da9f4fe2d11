/**
 * A whole CX network in one process and what runs on it: {@link org.cx.harness.LocalCluster} (servers and producers
 * over loopback TCP), the benches behind {@code cx bench} ({@link org.cx.harness.FibBench},
 * {@link org.cx.harness.RecoveryBench}, {@link org.cx.harness.CodeBench}, {@link org.cx.harness.PaperBench} with
 * {@link org.cx.harness.PaperReport}), and the zero-overhead limit every efficiency is compared with
 * ({@link org.cx.harness.CeilingSimulator}). The command line and the system tests both use it.
 */
package org.cx.harness;
