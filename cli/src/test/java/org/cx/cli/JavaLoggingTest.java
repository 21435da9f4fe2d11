package org.cx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What logs through java.util.logging (River does) reaches the command's log, at the matching level. */
class JavaLoggingTest {
    @Test
    void javaUtilLoggingGoesToTheSameLog() {
        Cx.bridgeJavaLogging();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        root.addAppender(seen);
        try {
            java.util.logging.Logger.getLogger("com.sun.jini.reggie.Test").severe("Reggie initialization failed");
            java.util.logging.Logger.getLogger("com.sun.jini.reggie.Test").fine("below the level: not sent");
        } finally {
            root.detachAppender(seen);
        }
        assertEquals(1, seen.list.size(), seen.list.toString());
        assertEquals(Level.ERROR, seen.list.get(0).getLevel());
        assertEquals("com.sun.jini.reggie.Test", seen.list.get(0).getLoggerName());
    }
}
