package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import io.tideline.node.testutil.LogCapture;
import java.io.IOException;
import java.util.List;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The one Ratis shutdown warning becomes one INFO line; the same logger's other warnings pass unchanged. */
class RatisShutdownNoiseFilterTest {
    private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    private final Logger appender = context.getLogger(RatisShutdownNoiseFilter.APPENDER_LOGGER);
    private final RatisShutdownNoiseFilter filter = new RatisShutdownNoiseFilter();
    private Level before;

    @BeforeEach
    void install() {
        // logback-test.xml keeps this logger at ERROR; the production config has it at WARN.
        before = appender.getLevel();
        appender.setLevel(Level.WARN);
        filter.start();
        context.addTurboFilter(filter);
    }

    @AfterEach
    void uninstall() {
        context.getTurboFilterList().remove(filter);
        appender.setLevel(before);
    }

    @Test
    void theResetClientWarningOfAClosedServerBecomesOneInfoLine() {
        try (LogCapture logs = new LogCapture()) {
            appender.warn(RatisShutdownNoiseFilter.RESET_CLIENT_FORMAT, "n2@group-1->n3-GrpcLogAppender", "n3",
                    new AlreadyClosedException("n2 is already CLOSED"));
            assertEquals(List.of(), logs.messagesOf(org.apache.ratis.grpc.server.GrpcLogAppender.class));
            assertEquals(List.of(), logs.errorsAndStackTraces());
            assertEquals(List.of("Metadata quorum log appender n2@group-1->n3-GrpcLogAppender stopped with its server "
                    + "(n2 is already CLOSED)"), logs.messagesOf(RatisShutdownNoiseFilter.class));
        }
    }

    @Test
    void otherFailuresAndMessagesOfTheAppenderPassUnchanged() {
        try (LogCapture logs = new LogCapture()) {
            appender.warn(RatisShutdownNoiseFilter.RESET_CLIENT_FORMAT, "a", "n3", new IOException("disk"));
            appender.warn("{}: Failed appendEntries", "a", new AlreadyClosedException("closed"));
            List<String> passed = logs.messagesOf(org.apache.ratis.grpc.server.GrpcLogAppender.class);
            assertEquals(List.of("a: Failed to resetClient for n3", "a: Failed appendEntries"), passed);
            assertEquals(2, logs.errorsAndStackTraces().size(), "both keep their stack traces");
            assertTrue(logs.messagesOf(RatisShutdownNoiseFilter.class).isEmpty());
        }
    }
}
