package io.tideline.node.tools;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Turns one known Ratis warning of a clean stop into one INFO line without a stack trace; every other
 * event passes untouched (logback.xml installs it as a turbo filter).
 *
 * <p>The warning: when the Raft leader's own server closes, Ratis closes its connections to the
 * followers first; an append stream to a follower that ends in that moment (the follower is stopping
 * too, as every node does at {@code cluster.sh stop}) makes GrpcLogAppender reconnect through the
 * closed connections, which fails with AlreadyClosedException, and Ratis logs that at WARN with a
 * stack trace. Nothing is lost: the server is closing and the appender with it. It comes from the
 * order inside Ratis' close, not from ours (our node closes its Raft server once, last), so there is
 * nothing to reorder; any other resetClient failure, or another exception, still logs as Ratis wrote it.
 */
public final class RatisShutdownNoiseFilter extends TurboFilter {
    static final String APPENDER_LOGGER = "org.apache.ratis.grpc.server.GrpcLogAppender";
    static final String RESET_CLIENT_FORMAT = "{}: Failed to resetClient for {}";
    private static final org.slf4j.Logger log = LoggerFactory.getLogger(RatisShutdownNoiseFilter.class);

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (level != Level.WARN || !APPENDER_LOGGER.equals(logger.getName()) || !RESET_CLIENT_FORMAT.equals(format)) {
            return FilterReply.NEUTRAL;
        }
        Throwable cause = t != null ? t : params != null && params.length > 0 && params[params.length - 1] instanceof Throwable e
                ? e : null;
        if (!(cause instanceof AlreadyClosedException)) {
            return FilterReply.NEUTRAL;
        }
        log.info("Metadata quorum log appender {} stopped with its server ({})",
                params != null && params.length > 0 ? params[0] : "?", cause.getMessage());
        return FilterReply.DENY;
    }
}
