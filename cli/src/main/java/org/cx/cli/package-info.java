/** The {@code cx} command: demo, server, producer, run and bench, built with Picocli. */
package org.cx.cli;
