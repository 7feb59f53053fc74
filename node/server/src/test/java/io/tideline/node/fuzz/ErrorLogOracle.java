package io.tideline.node.fuzz;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * What the node logged at ERROR while the fuzzer runs: no request, however hostile, may make it (docs/behaviours.md
 * B162, B165). An answer that could not be written, say, closes its connection, which the fuzzer sees only as a
 * connection the node closed; its ERROR line is what tells it apart from a refused frame. Thread-safe: logback
 * appends from the node's threads.
 */
final class ErrorLogOracle implements AutoCloseable {
    /** Lines kept per step; a flood is reported by its first ones. */
    private static final int KEPT = 20;

    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    /** Guarded by itself. */
    private final List<String> seen = new ArrayList<>();
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent e) {
            if (!e.getLevel().isGreaterOrEqual(Level.ERROR)) {
                return;
            }
            String line = e.getLoggerName() + " - " + e.getFormattedMessage() + (e.getThrowableProxy() == null ? ""
                    : " (" + e.getThrowableProxy().getClassName() + ": " + e.getThrowableProxy().getMessage() + ")");
            synchronized (seen) {
                if (seen.size() < KEPT) {
                    seen.add(line);
                }
            }
        }
    };

    ErrorLogOracle() {
        appender.setContext(root.getLoggerContext());
        appender.start();
        root.addAppender(appender);
    }

    /** The lines logged at ERROR since the last call (at most {@value #KEPT}). */
    List<String> drain() {
        synchronized (seen) {
            List<String> out = List.copyOf(seen);
            seen.clear();
            return out;
        }
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
