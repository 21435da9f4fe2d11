package org.cx.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/** The {@code --log-level} and {@code --log-file} options, applied to Logback before a command runs. */
final class LogSettings {
    /** The pattern of {@code logback.xml}'s console appender, for the file too. */
    private static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{0}: %msg%n";

    private LogSettings() {
    }

    /** Sets the root level ({@code level}, null: as configured) and sends the log to {@code file} (null: stderr). */
    static void apply(String level, Path file) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return; // another SLF4J binding (an application's): its own configuration rules
        }
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (level != null) {
            Level parsed = Level.toLevel(level.toUpperCase(Locale.ROOT), null);
            if (parsed == null) {
                throw new IllegalArgumentException("--log-level must be ERROR, WARN, INFO, DEBUG or TRACE, got '"
                        + level + "'");
            }
            root.setLevel(parsed);
        }
        if (file != null) {
            PatternLayoutEncoder encoder = new PatternLayoutEncoder();
            encoder.setContext(context);
            encoder.setPattern(PATTERN);
            encoder.start();
            FileAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender = new FileAppender<>();
            appender.setContext(context);
            appender.setName("FILE");
            appender.setFile(file.toAbsolutePath().toString());
            appender.setAppend(true);
            appender.setEncoder(encoder);
            appender.start();
            if (!appender.isStarted()) {
                throw new IllegalArgumentException("--log-file: cannot write to " + file.toAbsolutePath());
            }
            root.detachAppender("ERR");
            root.addAppender(appender);
        }
    }
}
