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
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin configs}, as Kafka's {@code kafka-configs.sh} for topics and brokers: {@code --describe}
 * prints a topic's overrides (or a broker's dynamic configs, {@link BrokerConfigsAction}) in Kafka's lines,
 * {@code --alter} sets ({@code --add-config k=v,k2=[a,b]}) and removes ({@code --delete-config k,k2})
 * them. Changes are validated by the controller and reach every broker without a restart; a retention
 * change takes effect at the next pass.
 */
@Command(name = "configs", sortOptions = false,
        description = "Describe or change a topic's config overrides or a broker's dynamic configs.")
final class ConfigsCommand implements Callable<Integer> {
    static final class Action {
        @Option(names = "--describe", required = true, description = "Print the overrides.")
        boolean describe;
        @Option(names = "--alter", required = true, description = "Set or delete overrides.")
        boolean alter;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    @Option(names = "--entity-type", paramLabel = "topics|brokers", required = true,
            description = "topics, or brokers (dynamic broker configs).")
    String entityType;

    @Option(names = "--entity-name", paramLabel = "NAME",
            description = "The topic, or the broker id (with --describe, default: every topic, or every broker and "
                    + "the cluster default).")
    String entityName;

    @Option(names = "--entity-default", description = "Brokers: the cluster-wide default of every broker.")
    boolean entityDefault;

    @Option(names = "--all", description = "With --describe of a broker: every dynamic key with its value in force, "
            + "not only the ones set for the broker.")
    boolean all;

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
        boolean brokers = "brokers".equals(entityType) || "broker".equals(entityType);
        if (!brokers && !"topics".equals(entityType) && !"topic".equals(entityType)) {
            throw CliException.usage("--entity-type " + entityType + " is not supported (topics, brokers)");
        }
        if (action.describe && (addConfig != null || deleteConfig != null)) {
            throw CliException.usage("--add-config and --delete-config only go with --alter");
        }
        if (!brokers && (entityDefault || all)) {
            throw CliException.usage((entityDefault ? "--entity-default" : "--all") + " only goes with --entity-type brokers");
        }
        if (entityDefault && entityName != null) {
            throw CliException.usage("--entity-name and --entity-default cannot be given together");
        }
        if (action.alter && all) {
            throw CliException.usage("--all only goes with --describe");
        }
        boolean named = entityName != null || entityDefault;
        if (action.alter && (!named || (addConfig == null && deleteConfig == null))) {
            throw CliException.usage("--alter needs " + (brokers ? "--entity-name or --entity-default" : "--entity-name")
                    + " and --add-config or --delete-config");
        }
        Map<String, String> set = addConfig == null ? Map.of() : parseAdd(addConfig);
        List<String> delete = deleteConfig == null ? List.of() : List.of(deleteConfig.split(","));
        OptionalInt broker = brokers && named ? BrokerConfigsAction.entity(entityName, entityDefault) : OptionalInt.empty();
        try (TidelineAdmin client = admin.client()) {
            if (brokers) {
                BrokerConfigsAction brokerConfigs = new BrokerConfigsAction(admin);
                return action.describe ? brokerConfigs.describe(client, named ? List.of(broker) : null, all)
                        : brokerConfigs.alter(client, broker, set, delete);
            }
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
