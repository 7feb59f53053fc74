package io.tideline.replication.server;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A throttled-replica list in Kafka's format ({@code leader.replication.throttled.replicas},
 * {@code follower.replication.throttled.replicas}): {@code *} for every replica of the topic, or
 * {@code partition:broker} entries separated by commas. Immutable.
 */
public final class ThrottledReplicas {
    public static final ThrottledReplicas NONE = new ThrottledReplicas(false, Set.of());

    private record Entry(int partition, int broker) {
    }

    private final boolean all;
    private final Set<Entry> entries;

    private ThrottledReplicas(boolean all, Set<Entry> entries) {
        this.all = all;
        this.entries = Set.copyOf(entries);
    }

    /**
     * Parses the config value (blank or null: none).
     *
     * @throws IllegalArgumentException naming the bad entry
     */
    public static ThrottledReplicas parse(String value) {
        if (value == null || value.isBlank()) {
            return NONE;
        }
        return parseItems(List.of(value.split(",")));
    }

    private static ThrottledReplicas parseItems(List<String> items) {
        Set<Entry> entries = new HashSet<>();
        boolean all = false;
        for (String raw : items) {
            String item = raw.trim().toLowerCase(Locale.ROOT);
            if (item.isEmpty()) {
                continue;
            }
            if (item.equals("*")) {
                all = true;
                continue;
            }
            String[] parts = item.split(":");
            try {
                if (parts.length != 2) {
                    throw new NumberFormatException();
                }
                int partition = Integer.parseInt(parts[0].trim());
                int broker = Integer.parseInt(parts[1].trim());
                if (partition < 0 || broker < 0) {
                    throw new NumberFormatException();
                }
                entries.add(new Entry(partition, broker));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + raw.trim() + "' is not '*' or partition:broker "
                        + "(non-negative integers, e.g. 0:101)");
            }
        }
        return all ? new ThrottledReplicas(true, Set.of()) : new ThrottledReplicas(false, entries);
    }

    /** Whether the replica of {@code partition} on {@code broker} is throttled. */
    public boolean includes(int partition, int broker) {
        return all || entries.contains(new Entry(partition, broker));
    }

    @Override
    public String toString() {
        return all ? "*" : entries.toString();
    }
}
