/**
 * The {@code cx} command, built with Picocli: {@link org.cx.cli.Cx} is the root, and each command is a class of its
 * own ({@code DemoCommand}, {@code ServerCommand}, {@code ProducerCommand}, {@code BenchFibCommand}, …). The benches
 * themselves are in {@code org.cx.harness}.
 */
package org.cx.cli;
