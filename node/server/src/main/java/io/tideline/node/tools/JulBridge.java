package io.tideline.node.tools;

import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Routes java.util.logging into slf4j (logback): gRPC and both Netty copies (io.grpc's and the one shaded
 * into Ratis) log through JUL, and without the bridge their lines reach the node's output in JUL's own
 * two-line format. The levels stay logback's: logback.xml's {@code LevelChangePropagator} copies them onto
 * the JUL loggers, so records below them cost no more than a level check.
 *
 * <p>Process-wide (JUL's root logger); the node's {@code main} installs it, tests in a shared JVM do not.
 */
final class JulBridge {
    private JulBridge() {
    }

    /** Replaces JUL's root handlers with the bridge; idempotent. */
    static synchronized void install() {
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }
}
