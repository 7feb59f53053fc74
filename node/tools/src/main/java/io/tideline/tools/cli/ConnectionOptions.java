package io.tideline.tools.cli;

import io.tideline.client.CommonClientConfigs;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * How a command reaches the cluster: {@code --bootstrap-server} and {@code --command-config}, declared once and
 * mixed into every command that takes them (picocli {@code @Mixin}), so that they have one name, one help text
 * and one way into a client's settings. Inherited by subcommands, where a command has them.
 */
final class ConnectionOptions {
    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT[,HOST:PORT...]", scope = ScopeType.INHERIT,
            description = "Brokers to reach the cluster through (any one that answers is enough); over "
                    + "bootstrap.servers in the settings.")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "CONFIG-FILE", scope = ScopeType.INHERIT,
            description = "A properties file of client settings (request.timeout.ms, default.api.timeout.ms, ...), "
                    + "under the command's own options; default.api.timeout.ms (max.block.ms of a producer) "
                    + "defaults to " + ClientSettings.TOOL_DEFAULT_API_TIMEOUT_MS + " here.")
    Path commandConfig;

    /** The bootstrap address given; a usage error when there is none. */
    String requireBootstrap() {
        if (bootstrapServer == null || bootstrapServer.isBlank()) {
            throw CliException.usage("missing required option --bootstrap-server");
        }
        return bootstrapServer;
    }

    /** Refuses {@code --command-config} together with its older name, as Kafka's perf tools do. */
    void refuseBoth(Path olderConfig, String olderName) {
        if (commandConfig != null && olderConfig != null) {
            throw CliException.usage("--command-config and " + olderName + " cannot be specified together.");
        }
    }

    /**
     * A client's settings ({@link ClientSettings#layered}): {@code defaults}, then the {@code --command-config}
     * file (or {@code olderConfig}, the file of its older name), then {@code properties}, then
     * {@code --bootstrap-server} (when given) and {@code fixed} over all of them.
     */
    Map<String, Object> settings(Map<String, Object> defaults, Path olderConfig, Map<String, String> properties,
                                 Map<String, Object> fixed) {
        Map<String, Object> own = new LinkedHashMap<>();
        if (bootstrapServer != null) {
            own.put(CommonClientConfigs.BOOTSTRAP_SERVERS, bootstrapServer);
        }
        own.putAll(fixed);
        return ClientSettings.layered(defaults, commandConfig != null ? commandConfig : olderConfig, properties, own);
    }
}
