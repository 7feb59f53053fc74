package io.tideline.tools.cli;

import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.common.errors.Errors;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin configs}, as Kafka's {@code kafka-configs.sh} for topics: {@code --describe} prints a
 * topic's overrides in Kafka's lines, {@code --alter} sets ({@code --add-config k=v,k2=[a,b]}) and
 * removes ({@code --delete-config k,k2}) overrides. Changes are validated by the controller as at
 * create and reach every broker without a restart; a retention change takes effect at the next pass.
 * Broker-level dynamic configs are not there yet: {@code --entity-type brokers} is refused.
 */
@Command(name = "configs", sortOptions = false, description = "Describe or change a topic's config overrides.")
final class ConfigsCommand implements Callable<Integer> {
    static final class Action {
        @Option(names = "--describe", required = true, description = "Print the overrides.")
        boolean describe;
        @Option(names = "--alter", required = true, description = "Set or delete overrides.")
        boolean alter;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    @Option(names = "--entity-type", paramLabel = "topics", required = true,
            description = "topics (broker-level dynamic configs are not supported yet).")
    String entityType;

    @Option(names = "--entity-name", paramLabel = "NAME",
            description = "The topic (with --describe, default: every topic).")
    String entityName;

    @Option(names = "--add-config", paramLabel = "K=V,K2=[A,B]",
            description = "With --alter: overrides to set, comma-separated; a value with commas goes in [ ].")
    String addConfig;

    @Option(names = "--delete-config", paramLabel = "K,K2",
            description = "With --alter: overrides to remove (the broker default applies again).")
    String deleteConfig;

    private final AdminCommand admin;

    ConfigsCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        if (!"topics".equals(entityType) && !"topic".equals(entityType)) {
            throw CliException.usage("--entity-type " + entityType + " is not supported"
                    + ("brokers".equals(entityType) || "broker".equals(entityType)
                    ? " yet: only topics have dynamic configs" : " (topics)"));
        }
        if (action.describe && (addConfig != null || deleteConfig != null)) {
            throw CliException.usage("--add-config and --delete-config only go with --alter");
        }
        if (action.alter && (entityName == null || (addConfig == null && deleteConfig == null))) {
            throw CliException.usage("--alter needs --entity-name and --add-config or --delete-config");
        }
        Map<String, String> set = addConfig == null ? Map.of() : parseAdd(addConfig);
        List<String> delete = deleteConfig == null ? List.of() : List.of(deleteConfig.split(","));
        try (TidelineAdmin client = admin.client()) {
            return action.describe ? describe(client) : alter(client, set, delete);
        }
    }

    private int alter(TidelineAdmin client, Map<String, String> set, List<String> delete) {
        admin.answer(client.alterTopicConfigs(entityName, set, delete),
                "cannot alter the configs of topic '" + entityName + "'");
        if (!admin.json()) {
            admin.io.out().println("Completed updating config for topic " + entityName + ".");
        }
        return Cli.EXIT_OK;
    }

    private int describe(TidelineAdmin client) {
        List<TopicDescription> topics = new ArrayList<>(client.describeTopics(
                entityName == null ? List.of() : List.of(entityName)));
        topics.sort(Comparator.comparing(TopicDescription::name));
        PrintStream out = admin.io.out();
        List<JsonOutput.TopicConfigs> json = new ArrayList<>();
        for (TopicDescription t : topics) {
            if (t.error() != Errors.NONE) {
                throw CliException.failed("topic '" + t.name() + "': " + t.error() + ": " + t.message());
            }
            Map<String, String> configs = new TreeMap<>(t.configs());
            if (admin.json()) {
                json.add(new JsonOutput.TopicConfigs(t.name(), configs));
                continue;
            }
            out.println("Dynamic configs for topic " + t.name() + " are:");
            configs.forEach((k, v) -> out.println("  " + k + "=" + v + " sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:"
                    + k + "=" + v + "}"));
        }
        if (admin.json()) {
            out.println(JsonOutput.write(new JsonOutput.DescribedConfigs(json)));
        }
        return Cli.EXIT_OK;
    }

    /** Kafka's --add-config: k=v pairs split at commas outside [ ], the brackets taken off the value. */
    static Map<String, String> parseAdd(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : ',';
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            } else if (c == ',' && depth == 0) {
                String pair = text.substring(start, i);
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw CliException.usage("--add-config: '" + pair + "' is not key=value");
                }
                String value = pair.substring(eq + 1);
                if (value.startsWith("[") && value.endsWith("]")) {
                    value = value.substring(1, value.length() - 1);
                }
                out.put(pair.substring(0, eq).trim(), value);
                start = i + 1;
            }
            if (depth < 0) {
                throw CliException.usage("--add-config: unbalanced ']' in '" + text + "'");
            }
        }
        if (depth != 0) {
            throw CliException.usage("--add-config: unbalanced '[' in '" + text + "'");
        }
        return out;
    }
}
