package io.tideline.tools.cli;

import io.tideline.client.ClusterDescription;
import io.tideline.client.ConfigEntry;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineClientException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * {@code admin configs --entity-type brokers}, as Kafka's {@code kafka-configs.sh}: {@code --describe}
 * prints a broker's dynamic configs (or the cluster-wide defaults, {@code --entity-default}; every broker
 * and then the defaults with neither) with each key's synonyms in precedence order; {@code --all} prints
 * every dynamically changeable key with its value in force. {@code --alter} sets and deletes dynamic
 * configs; the controller validates them and every broker applies them without a restart.
 */
final class BrokerConfigsAction {
    private final AdminCommand admin;

    BrokerConfigsAction(AdminCommand admin) {
        this.admin = admin;
    }

    /**
     * Kafka's rule for a broker entity name: an integer broker id.
     *
     * @return empty for {@code --entity-default}
     */
    static OptionalInt entity(String name, boolean entityDefault) {
        if (entityDefault) {
            return OptionalInt.empty();
        }
        try {
            int id = Integer.parseInt(name.trim());
            if (id < 0) {
                throw new NumberFormatException();
            }
            return OptionalInt.of(id);
        } catch (NumberFormatException e) {
            throw CliException.usage("The entity name for brokers must be a valid integer broker id, but it is: " + name);
        }
    }

    int alter(TidelineAdmin client, OptionalInt broker, Map<String, String> set, Collection<String> delete) {
        String name = broker.isPresent() ? String.valueOf(broker.getAsInt()) : "";
        try {
            client.alterBrokerConfigs(broker, set, delete);
        } catch (TidelineClientException e) {
            if (admin.json()) {
                admin.io.out().println(JsonOutput.write(new JsonOutput.TopicOutcome(name, e.error().name(),
                        e.getMessage() == null ? "" : e.getMessage())));
            }
            throw CliException.failed("cannot alter the configs of " + label(broker) + ": " + Cli.describe(e));
        }
        if (admin.json()) {
            admin.io.out().println(JsonOutput.write(new JsonOutput.TopicOutcome(name, "NONE", "")));
        } else {
            admin.io.out().println(broker.isPresent() ? "Completed updating config for broker " + name + "."
                    : "Completed updating default config for brokers in the cluster.");
        }
        return Cli.EXIT_OK;
    }

    /** @param entities the brokers to describe, empty for the default; null for every broker and the default */
    int describe(TidelineAdmin client, List<OptionalInt> entities, boolean all) {
        List<OptionalInt> targets = entities;
        if (targets == null) {
            targets = new ArrayList<>();
            for (ClusterDescription.Broker b : client.describeCluster().brokers()) {
                targets.add(OptionalInt.of(b.id()));
            }
            targets.add(OptionalInt.empty());
        }
        PrintStream out = admin.io.out();
        List<JsonOutput.BrokerConfigs> json = new ArrayList<>();
        for (OptionalInt broker : targets) {
            Map<String, ConfigEntry> entries = client.describeBrokerConfigs(broker);
            ConfigEntry.ConfigSource shown = broker.isPresent() ? ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG
                    : ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG;
            List<ConfigEntry> listed = entries.values().stream().filter(e -> all || e.source() == shown).toList();
            if (admin.json()) {
                json.add(JsonOutput.BrokerConfigs.of(broker.isPresent() ? String.valueOf(broker.getAsInt()) : "", listed));
                continue;
            }
            out.println(broker.isEmpty() ? "Default configs for brokers in the cluster are:"
                    : (all ? "All" : "Dynamic") + " configs for broker " + broker.getAsInt() + " are:");
            for (ConfigEntry e : listed) {
                out.println("  " + e.name() + "=" + e.value() + " sensitive=false synonyms={" + e.synonyms().stream()
                        .map(s -> s.source() + ":" + s.name() + "=" + s.value()).collect(Collectors.joining(", ")) + "}");
            }
        }
        if (admin.json()) {
            out.println(JsonOutput.write(new JsonOutput.DescribedBrokerConfigs(json)));
        }
        return Cli.EXIT_OK;
    }

    private static String label(OptionalInt broker) {
        return broker.isPresent() ? "broker " + broker.getAsInt() : "the cluster-wide broker default";
    }
}
