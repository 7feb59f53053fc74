package io.tideline.node.testutil;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;

/**
 * Collects every event the root logger passes (after the levels of logback-test.xml) while open, so a
 * test can assert what a component logged. Thread-safe: logback appends from any thread.
 */
public final class LogCapture implements AutoCloseable {
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    public LogCapture() {
        appender.setContext(root.getLoggerContext());
        appender.start();
        root.addAppender(appender);
    }

    /** Events at ERROR, or with a throwable (a stack trace in the log), at any level. */
    public List<String> errorsAndStackTraces() {
        synchronized (appender.list) {
            return appender.list.stream()
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null)
                    .map(e -> e.getLevel() + " " + e.getLoggerName() + " - " + e.getFormattedMessage()
                            + (e.getThrowableProxy() == null ? "" : " (" + e.getThrowableProxy().getClassName()
                            + ": " + e.getThrowableProxy().getMessage() + ")"))
                    .collect(Collectors.toList());
        }
    }

    /** Messages of events at ERROR only. */
    public List<String> errors() {
        synchronized (appender.list) {
            return appender.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                    .map(e -> e.getLoggerName() + " - " + e.getFormattedMessage()).collect(Collectors.toList());
        }
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
