package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import io.tideline.node.testutil.LogCapture;
import java.net.URL;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

class JulBridgeTest {

    /** gRPC's and Netty's java.util.logging lines reach logback in the node's one-line format, not JUL's two-line one. */
    @Test
    void julRecordsReachLogbackOnceInstalled() {
        JulBridge.install();
        JulBridge.install();
        try (LogCapture logs = new LogCapture()) {
            java.util.logging.Logger.getLogger("io.grpc.bridge.test").severe("from JUL");
            assertEquals(java.util.List.of("io.grpc.bridge.test - from JUL"), logs.errors());
        }
    }

    /** The node's logback.xml copies its levels onto the JUL loggers, so filtered JUL records are never bridged. */
    @Test
    void theNodesLogbackConfigPropagatesItsLevelsToJul() throws Exception {
        URL config = ServerCommand.class.getResource("/logback.xml");
        assertNotNull(config, "the node's logback.xml on the class path");
        LoggerContext context = new LoggerContext();
        try {
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(config);
            assertEquals(Level.WARNING, java.util.logging.Logger.getLogger("io.grpc").getLevel());
            assertEquals(Level.WARNING, java.util.logging.Logger.getLogger("org.apache.ratis").getLevel());
            assertEquals(Level.INFO, java.util.logging.Logger.getLogger("io.tideline").getLevel());
        } finally {
            context.stop();
        }
    }
}
