package io.tideline.testsupport.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL of a Grafana dashboard and the metric names it asks for, so a test can hold a dashboard against what a
 * node's {@code /metrics} serves. Reads the dashboard's JSON text without a JSON library (this module has no
 * dependencies): every string value of an {@code "expr"} key (the panels' queries) and of a {@code "definition"} key
 * (the template variables' queries), JSON escapes decoded.
 *
 * <p>Metric names are what is left of a query once these are taken out: string literals, label matchers
 * ({@code {...}}), range and subquery selectors ({@code [5m]}, {@code [1h:1m]}), the label lists of {@code by},
 * {@code without}, {@code on}, {@code ignoring}, {@code group_left} and {@code group_right}, function and aggregation
 * names (an identifier followed by {@code (}), keywords and operators ({@code and}, {@code or}, {@code unless},
 * {@code bool}, {@code offset}), numbers and durations. A {@code label_values(metric, label)} template query names
 * its first argument. Grafana variables ({@code $job}, {@code ${x}}) only occur inside matchers here.
 */
public final class DashboardQueries {
    private static final Pattern STRING_KEY = Pattern.compile("(?<!\\\\)\"(expr|definition)\"\\s*:\\s*\"");
    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)");
    private static final Pattern LABEL_LIST = Pattern.compile(
            "\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without",
            "on", "ignoring", "group_left", "group_right", "inf", "nan");

    private DashboardQueries() {
    }

    /** The queries of a dashboard's JSON text: every panel target's {@code expr}, then its variables'. */
    public static List<String> queries(String dashboardJson) {
        List<String> queries = new ArrayList<>();
        Matcher m = STRING_KEY.matcher(dashboardJson);
        int from = 0;
        while (m.find(from)) {
            StringBuilder value = new StringBuilder();
            from = readJsonString(dashboardJson, m.end(), value);
            queries.add(value.toString());
        }
        return queries;
    }

    /** The metric names {@code promql} selects (rules in the class comment). */
    public static Set<String> metricNames(String promql) {
        Set<String> names = new TreeSet<>();
        Matcher labelValues = LABEL_VALUES.matcher(promql);
        if (labelValues.find()) {
            names.add(labelValues.group(1));
            return names;
        }
        String rest = stripBracketed(stripStrings(promql));
        rest = LABEL_LIST.matcher(rest).replaceAll(" ");
        Matcher id = IDENTIFIER.matcher(rest);
        while (id.find()) {
            String word = id.group();
            int after = id.end();
            while (after < rest.length() && Character.isWhitespace(rest.charAt(after))) {
                after++;
            }
            boolean call = after < rest.length() && rest.charAt(after) == '(';
            boolean partOfNumber = id.start() > 0 && (Character.isDigit(rest.charAt(id.start() - 1))
                    || rest.charAt(id.start() - 1) == '.');
            if (!call && !partOfNumber && !KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                names.add(word);
            }
        }
        return names;
    }

    /** Every metric name the dashboard's queries select. */
    public static Set<String> metricNamesOfDashboard(String dashboardJson) {
        Set<String> names = new TreeSet<>();
        for (String query : queries(dashboardJson)) {
            names.addAll(metricNames(query));
        }
        return names;
    }

    /** {@code promql} with each string literal ({@code "..."}, {@code '...'}, {@code `...`}) replaced by a space. */
    private static String stripStrings(String promql) {
        StringBuilder out = new StringBuilder(promql.length());
        char quote = 0;
        for (int i = 0; i < promql.length(); i++) {
            char c = promql.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote != '`') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                    out.append(' ');
                }
            } else if (c == '"' || c == '\'' || c == '`') {
                quote = c;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** {@code s} (strings already out) with every {@code {...}} and {@code [...]} replaced by a space. */
    private static String stripBracketed(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int depth = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth = Math.max(0, depth - 1);
                if (depth == 0) {
                    out.append(' ');
                }
            } else if (depth == 0) {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Decodes the JSON string starting at {@code start} (after its opening quote) into {@code out}; returns the index after its closing quote. */
    private static int readJsonString(String json, int start, StringBuilder out) {
        int i = start;
        while (i < json.length()) {
            char c = json.charAt(i++);
            if (c == '"') {
                return i;
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (i >= json.length()) {
                break;
            }
            char e = json.charAt(i++);
            switch (e) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    if (i + 4 > json.length()) {
                        throw new IllegalArgumentException("truncated \\u escape at " + (i - 2));
                    }
                    out.append((char) Integer.parseInt(json.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> out.append(e);
            }
        }
        throw new IllegalArgumentException("unterminated JSON string starting at " + start);
    }
}
