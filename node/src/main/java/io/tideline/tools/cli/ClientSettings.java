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
 * a typo in a key or a bad value is a usage error naming the key, not a silently ignored setting.
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
    static Map<String, Object> admin(String bootstrapServers, Path commandConfig) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(AdminConfig.DEFAULT_API_TIMEOUT_MS, TOOL_DEFAULT_API_TIMEOUT_MS);
        if (commandConfig != null) {
            settings.putAll(load(commandConfig));
        }
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS, bootstrapServers);
        check(commandConfig == null ? "defaults" : "--command-config " + commandConfig, settings, AdminConfig::new);
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
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(ProducerConfig.MAX_BLOCK_MS, (long) TOOL_DEFAULT_API_TIMEOUT_MS);
        settings.putAll(properties);
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS, bootstrapServers);
        if (acks != null) {
            settings.put(ProducerConfig.ACKS, acks);
        }
        check("--producer-property", settings, ProducerConfig::new);
        return settings;
    }

    /** Consumer settings: {@code --consumer-property} pairs, then bootstrap address and auto.offset.reset. */
    static Map<String, Object> consumer(String bootstrapServers, Map<String, String> properties, String reset) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS, TOOL_DEFAULT_API_TIMEOUT_MS);
        settings.putAll(properties);
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS, bootstrapServers);
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET, reset);
        check("--consumer-property", settings, ConsumerConfig::new);
        return settings;
    }

    /** Parses with the client's own definitions (bad values throw ConfigException), then refuses unknown keys. */
    private static void check(String source, Map<String, Object> settings,
                              Function<Map<String, Object>, AbstractConfig> parser) {
        Set<String> unknown = new TreeSet<>(parser.apply(settings).unknownKeys());
        if (!unknown.isEmpty()) {
            throw CliException.usage("unknown client setting" + (unknown.size() == 1 ? " " : "s ")
                    + String.join(", ", unknown) + " (from " + source + ")");
        }
    }

    private static Map<String, Object> load(Path file) {
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
