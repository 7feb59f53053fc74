package io.tideline.tools.cli;

import io.tideline.client.AdminConfig;
import io.tideline.client.CommonClientConfigs;
import io.tideline.client.ConsumerConfig;
import io.tideline.client.ProducerConfig;
import io.tideline.common.config.AbstractConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Builds a client's settings from a command's options and checks them before a client exists, so that
 * a typo in a key or a bad value is a usage error naming the key, not a silently ignored setting. Every
 * command layers them the same way ({@link #layered}); {@link ConnectionOptions} holds the options that
 * say where the cluster is.
 */
final class ClientSettings {
    /**
     * How long a tool keeps trying unreachable brokers: default.api.timeout.ms of the admin client and
     * the consumer, max.block.ms of the producer. The clients' own defaults (60 s) suit a service;
     * someone at a terminal who mistyped a port should hear about it sooner.
     */
    static final int TOOL_DEFAULT_API_TIMEOUT_MS = 15_000;

    private ClientSettings() {
    }

    /** Admin client settings: the {@code --command-config} file (if any) under the bootstrap address. */
    static Map<String, Object> admin(ConnectionOptions connection) {
        connection.requireBootstrap();
        Map<String, Object> settings = connection.settings(
                Map.of(AdminConfig.DEFAULT_API_TIMEOUT_MS, TOOL_DEFAULT_API_TIMEOUT_MS), null, Map.of(), Map.of());
        Path file = connection.commandConfig;
        check(file == null ? "defaults" : "--command-config " + file, settings, AdminConfig::new);
        return settings;
    }

    /** default.api.timeout.ms of admin settings made by {@link #admin}. */
    static int apiTimeoutMs(Map<String, Object> adminSettings) {
        return new AdminConfig(adminSettings).defaultApiTimeoutMs();
    }

    /** Admin settings for the topic lookup of produce and consume: their own bound, request.timeout.ms. */
    static Map<String, Object> adminFor(Map<String, Object> clientSettings, long apiTimeoutMs) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS, clientSettings.get(CommonClientConfigs.BOOTSTRAP_SERVERS));
        settings.put(AdminConfig.DEFAULT_API_TIMEOUT_MS, (int) Math.min(Integer.MAX_VALUE, apiTimeoutMs));
        for (String key : new String[] {CommonClientConfigs.REQUEST_TIMEOUT_MS, CommonClientConfigs.RETRY_BACKOFF_MS,
                CommonClientConfigs.CLIENT_ID}) {
            if (clientSettings.containsKey(key)) {
                settings.put(key, clientSettings.get(key));
            }
        }
        return settings;
    }

    /** Producer settings: {@code --producer-property} pairs, then the options that name a key themselves. */
    static Map<String, Object> producer(String bootstrapServers, Map<String, String> properties, String acks) {
        Map<String, Object> fixed = new LinkedHashMap<>();
        fixed.put(CommonClientConfigs.BOOTSTRAP_SERVERS, bootstrapServers);
        if (acks != null) {
            fixed.put(ProducerConfig.ACKS, acks);
        }
        Map<String, Object> settings = layered(Map.of(ProducerConfig.MAX_BLOCK_MS, (long) TOOL_DEFAULT_API_TIMEOUT_MS),
                null, properties, fixed);
        check("--producer-property", settings, ProducerConfig::new);
        return settings;
    }

    /** Consumer settings: {@code --consumer-property} pairs, then bootstrap address and auto.offset.reset. */
    static Map<String, Object> consumer(String bootstrapServers, Map<String, String> properties, String reset) {
        Map<String, Object> fixed = new LinkedHashMap<>();
        fixed.put(CommonClientConfigs.BOOTSTRAP_SERVERS, bootstrapServers);
        fixed.put(ConsumerConfig.AUTO_OFFSET_RESET, reset);
        Map<String, Object> settings = layered(Map.of(ConsumerConfig.DEFAULT_API_TIMEOUT_MS, TOOL_DEFAULT_API_TIMEOUT_MS),
                null, properties, fixed);
        check("--consumer-property", settings, ConsumerConfig::new);
        return settings;
    }

    /**
     * A command's client settings, layered as Kafka's tools layer them: {@code defaults}, then the
     * properties {@code file} (if any), then the {@code properties} pairs, then {@code fixed} (what the
     * command's own flags say, e.g. --bootstrap-server or --fetch-size) over all of them.
     */
    static Map<String, Object> layered(Map<String, Object> defaults, Path file, Map<String, String> properties,
                                       Map<String, Object> fixed) {
        Map<String, Object> settings = new LinkedHashMap<>(defaults);
        if (file != null) {
            settings.putAll(load(file));
        }
        settings.putAll(properties);
        settings.putAll(fixed);
        return settings;
    }

    /**
     * Checks a perf tool's settings with the client's definitions (a bad value of a known key is a usage
     * error) and names the keys the client does not know in one WARN line on stderr, leaving them in the
     * settings: Kafka's perf tools hand every key to the client, which ignores the ones it does not know
     * (logging them at INFO), so a properties file written for Kafka's tool runs here too, and the
     * warning says which of its keys had no effect. {@code usedByTool} are keys the tool reads itself.
     */
    static void warnUnknown(CliIo io, String tool, String client, Map<String, Object> settings,
                            Function<Map<String, Object>, AbstractConfig> parser, Set<String> usedByTool) {
        Set<String> unknown = unknownKeys(settings, parser);
        unknown.removeAll(usedByTool);
        warnUnknown(io, tool, client, unknown);
    }

    /** The WARN line of {@link #warnUnknown(CliIo, String, String, Map, Function, Set)} for keys found otherwise. */
    static void warnUnknown(CliIo io, String tool, String clients, Set<String> unknown) {
        if (!unknown.isEmpty()) {
            io.err().println(tool + ": WARN the Tideline " + clients + " does not know " + String.join(", ", unknown)
                    + "; ignored");
        }
    }

    /** Parses with the client's own definitions (bad values throw ConfigException), then refuses unknown keys. */
    private static void check(String source, Map<String, Object> settings,
                              Function<Map<String, Object>, AbstractConfig> parser) {
        Set<String> unknown = unknownKeys(settings, parser);
        if (!unknown.isEmpty()) {
            throw CliException.usage("unknown client setting" + (unknown.size() == 1 ? " " : "s ")
                    + String.join(", ", unknown) + " (from " + source + ")");
        }
    }

    /**
     * The keys of {@code settings} that the client parsed by {@code parser} does not know, sorted, after
     * checking the values of those it does know (a bad value throws ConfigException, a usage error). The
     * perf tools pass settings on the way Kafka's perf tools do, ignoring keys the client does not know,
     * and warn about these instead of refusing them.
     */
    static Set<String> unknownKeys(Map<String, Object> settings, Function<Map<String, Object>, AbstractConfig> parser) {
        return new TreeSet<>(parser.apply(settings).unknownKeys());
    }

    /** A properties file of client settings (a missing or unreadable file is a usage error naming it). */
    static Map<String, Object> load(Path file) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (NoSuchFileException e) {
            throw CliException.usage("cannot read " + file + ": no such file");
        } catch (IOException | IllegalArgumentException e) {
            throw CliException.usage("cannot read " + file + ": " + Cli.firstLine(e.getMessage()));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        props.stringPropertyNames().forEach(k -> out.put(k, props.getProperty(k)));
        return out;
    }
}
