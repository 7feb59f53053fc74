package io.tideline.node.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A reader of the Prometheus text exposition format (version 0.0.4), enough to check a scrape: sample lines
 * {@code name{label="value",...} number}, with the format's escapes in label values; # lines give the TYPE.
 */
public final class PrometheusText {

    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples;
    private final Map<String, String> types;

    private PrometheusText(List<Sample> samples, Map<String, String> types) {
        this.samples = samples;
        this.types = types;
    }

    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.substring("# TYPE ".length()).split(" ");
                types.put(parts[0], parts[1]);
            } else if (!line.isBlank() && !line.startsWith("#")) {
                samples.add(sample(line));
            }
        }
        return new PrometheusText(samples, types);
    }

    private static Sample sample(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        Map<String, String> labels = new LinkedHashMap<>();
        if (line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String label = line.substring(i, eq);
                if (line.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException("unquoted label value in: " + line);
                }
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char escaped = line.charAt(++j);
                        value.append(escaped == 'n' ? '\n' : escaped);
                    } else {
                        value.append(c);
                    }
                }
                labels.put(label, value.toString());
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            i++;
        }
        String[] rest = line.substring(i).trim().split(" ");
        return new Sample(name, labels, Double.parseDouble(rest[0]));
    }

    public List<Sample> samples() {
        return samples;
    }

    public Optional<String> type(String family) {
        return Optional.ofNullable(types.get(family));
    }

    /** The value of the one sample with this name and exactly these labels. */
    public double value(String name, Map<String, String> labels) {
        List<Sample> matching = samples.stream()
                .filter(s -> s.name().equals(name) && s.labels().equals(labels)).toList();
        if (matching.size() != 1) {
            throw new AssertionError(matching.size() + " samples " + name + labels + " in the scrape; names: "
                    + samples.stream().map(Sample::name).distinct().toList());
        }
        return matching.get(0).value();
    }

    public double value(String name) {
        return value(name, Map.of());
    }
}
