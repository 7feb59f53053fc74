package io.tideline.tools.cli;

import io.tideline.common.TopicPartition;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The new offsets of {@code consumer-groups --reset-offsets}, decided from the scenario, the group's committed
 * offsets and the partitions' log offsets, as kafka-consumer-groups decides them: --to-offset and --shift-by are
 * clamped into [log start, log end] with a warning; --to-datetime and --by-duration fall back to the log end for a
 * partition with no record at or after the time; --to-current keeps a committed offset and takes the log end for a
 * partition without one. A pure function: the caller fetches the log offsets ({@link LogOffsets}).
 */
final class GroupResetPlan {
    enum Kind { EARLIEST, LATEST, CURRENT, OFFSET, SHIFT_BY, DATETIME }

    /** @param value the offset (OFFSET), the shift (SHIFT_BY) or the epoch ms (DATETIME); unused otherwise */
    record Scenario(Kind kind, long value) {
    }

    /** The partitions' log offsets, each map missing the partitions whose leader did not answer. */
    interface LogOffsets {
        Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions);

        Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions);

        /** The first offset at or after {@code timestampMs}, -1 when the partition has none. */
        Map<TopicPartition, Long> forTimestamp(Collection<TopicPartition> partitions, long timestampMs);
    }

    private GroupResetPlan() {
    }

    /**
     * @param committed the group's committed offsets
     * @param warn      receives one line per adjustment (clamped, fallen back)
     * @throws CliException a partition whose log offsets are unknown, or --shift-by on one without a commit
     */
    static Map<TopicPartition, Long> plan(Scenario scenario, Collection<TopicPartition> partitions,
                                          Map<TopicPartition, Long> committed, LogOffsets logs, Consumer<String> warn) {
        Map<TopicPartition, Long> out = new TreeMap<>();
        switch (scenario.kind()) {
            case EARLIEST -> fill(out, partitions, logs.earliest(partitions), "starting");
            case LATEST -> fill(out, partitions, logs.latest(partitions), "ending");
            case OFFSET -> partitions.forEach(tp -> out.put(tp, scenario.value()));
            case SHIFT_BY -> partitions.forEach(tp -> {
                Long current = committed.get(tp);
                if (current == null) {
                    throw CliException.failed("cannot shift the offset of " + tp + ": it has no committed offset");
                }
                out.put(tp, current + scenario.value());
            });
            case CURRENT -> {
                java.util.List<TopicPartition> without = partitions.stream().filter(tp -> !committed.containsKey(tp)).toList();
                partitions.stream().filter(committed::containsKey).forEach(tp -> out.put(tp, committed.get(tp)));
                fill(out, without, logs.latest(without), "ending");
            }
            case DATETIME -> {
                Map<TopicPartition, Long> found = logs.forTimestamp(partitions, scenario.value());
                java.util.List<TopicPartition> empty = partitions.stream()
                        .filter(tp -> found.containsKey(tp) && found.get(tp) < 0).toList();
                empty.forEach(tp -> warn.accept("Partition " + tp.partition() + " of topic " + tp.topic()
                        + " has no record at or after the time; falling back to its log end offset."));
                Map<TopicPartition, Long> known = new TreeMap<>(found);
                empty.forEach(known::remove);
                known.putAll(logs.latest(empty));
                fill(out, partitions, known, "timestamp");
            }
            default -> throw new IllegalStateException("unknown scenario " + scenario);
        }
        if (scenario.kind() == Kind.OFFSET || scenario.kind() == Kind.SHIFT_BY) {
            clamp(out, logs, warn);
        }
        return out;
    }

    private static void fill(Map<TopicPartition, Long> out, Collection<TopicPartition> partitions,
                             Map<TopicPartition, Long> offsets, String which) {
        for (TopicPartition tp : partitions) {
            Long offset = offsets.get(tp);
            if (offset == null || offset < 0) {
                throw CliException.failed("could not get the " + which + " offset of " + tp);
            }
            out.put(tp, offset);
        }
    }

    private static void clamp(Map<TopicPartition, Long> out, LogOffsets logs, Consumer<String> warn) {
        Map<TopicPartition, Long> start = logs.earliest(out.keySet());
        Map<TopicPartition, Long> end = logs.latest(out.keySet());
        out.replaceAll((tp, offset) -> {
            Long high = end.get(tp);
            Long low = start.get(tp);
            if (high == null || low == null) {
                throw CliException.failed("could not get the log offsets of " + tp);
            }
            if (offset > high) {
                warn.accept("New offset (" + offset + ") is higher than the latest offset of " + tp + "; using " + high);
                return high;
            }
            if (offset < low) {
                warn.accept("New offset (" + offset + ") is lower than the earliest offset of " + tp + "; using " + low);
                return low;
            }
            return offset;
        });
    }

    /**
     * --to-datetime's value, Kafka's 'YYYY-MM-DDTHH:mm:SS.sss' with an optional zone (Z, +hh:mm); without one, in
     * {@code zone}.
     */
    static long parseDateTime(String text, ZoneId zone) {
        try {
            return OffsetDateTime.parse(text).toInstant().toEpochMilli();
        } catch (DateTimeParseException withoutZone) {
            try {
                return LocalDateTime.parse(text).atZone(zone).toInstant().toEpochMilli();
            } catch (DateTimeParseException e) {
                throw CliException.usage("--to-datetime: '" + text + "' is not a date and time like "
                        + "2026-12-04T21:00:00.000 (optionally followed by Z or +hh:mm)");
            }
        }
    }

    /** --by-duration's value (an ISO-8601 duration such as PT1H30M) as the time that long before {@code nowMs}. */
    static long parseDuration(String text, long nowMs) {
        try {
            Duration d = Duration.parse(text);
            if (d.isNegative()) {
                throw CliException.usage("--by-duration: '" + text + "' is negative");
            }
            return nowMs - d.toMillis();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw CliException.usage("--by-duration: '" + text + "' is not a duration like PT1H30M or P1DT2H");
        }
    }
}
