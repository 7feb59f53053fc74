package io.tideline.node.tools;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/** Reads a node's gauge over remote JMX, as a JMX client of an operator (jconsole, a JMX exporter) would. */
final class JmxProbe {
    private JmxProbe() {
    }

    /** kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions through the JMX connector at host:port. */
    static double underReplicatedPartitions(String host, int port) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
        Map<String, Object> env = new HashMap<>();
        // A connector that accepts the connection and then never answers would hold the test: bound the RMI calls.
        env.put("jmx.remote.x.request.waiting.timeout", 10_000L);
        try (JMXConnector connector = connect(url, env)) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            Object value = server.getAttribute(
                    new ObjectName("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"), "Value");
            return ((Number) value).doubleValue();
        }
    }

    private static JMXConnector connect(JMXServiceURL url, Map<String, Object> env) throws IOException {
        return JMXConnectorFactory.connect(url, env);
    }
}
