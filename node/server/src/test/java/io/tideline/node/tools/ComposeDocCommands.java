package io.tideline.node.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The commands of docs/containers.md, as ComposeClusterTest runs them: the fenced blocks whose info string is
 * {@code sh} and one of {@link #KINDS}, one command per line ({@code # ...} ends a line's command, blank lines and
 * comment lines are skipped, a trailing backslash continues a line). The page is the script: a block the page
 * loses, or a kind it adds, fails the test rather than going unrun.
 *
 * <p>{@link #forRun} adapts a command to one test run in the two ways the page describes: the host override's
 * ports ({@code 127.0.0.1:9xxx}, prefix 9) move to the run's prefix, and {@code JMX_PORT=9999} to the run's JMX base.
 */
final class ComposeDocCommands {
    static final Set<String> KINDS = Set.of("engine", "up", "use", "down", "network");
    private static final Pattern FENCE = Pattern.compile("(?m)^```sh ([a-z]+)\\n(.*?)^```$", Pattern.DOTALL);
    private static final Pattern DEFAULT_PREFIX_PORT = Pattern.compile("127\\.0\\.0\\.1:9(\\d{3})\\b");
    private static final String DOC_JMX_PORT = "JMX_PORT=9999";
    private static final Pattern EXPORT = Pattern.compile("export ([A-Z_][A-Z0-9_]*)=(\\S+)");

    private final Map<String, List<String>> blocks;

    private ComposeDocCommands(Map<String, List<String>> blocks) {
        this.blocks = blocks;
    }

    static ComposeDocCommands read(Path page) throws IOException {
        return parse(Files.readString(page, StandardCharsets.UTF_8));
    }

    static ComposeDocCommands parse(String markdown) {
        Map<String, List<String>> blocks = new LinkedHashMap<>();
        Matcher m = FENCE.matcher(markdown);
        while (m.find()) {
            String kind = m.group(1);
            if (!KINDS.contains(kind)) {
                throw new AssertionError("a ```sh " + kind + " block, which no step of the test runs; kinds: " + KINDS);
            }
            if (blocks.containsKey(kind)) {
                throw new AssertionError("two ```sh " + kind + " blocks: the test runs one of each kind");
            }
            blocks.put(kind, commands(m.group(2)));
        }
        for (String kind : KINDS) {
            if (!blocks.containsKey(kind) || blocks.get(kind).isEmpty()) {
                throw new AssertionError("no commands in a ```sh " + kind + " block of docs/containers.md");
            }
        }
        return new ComposeDocCommands(blocks);
    }

    private static List<String> commands(String block) {
        List<String> commands = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String line : block.split("\n", -1)) {
            String code = stripComment(line).strip();
            if (code.endsWith("\\")) {
                pending.append(code, 0, code.length() - 1).append(' ');
                continue;
            }
            pending.append(code);
            String command = pending.toString().strip().replaceAll("\\s+", " ");
            pending.setLength(0);
            if (!command.isEmpty()) {
                commands.add(command);
            }
        }
        return commands;
    }

    /** A line without its {@code # ...} comment; a '#' inside quotes (a Go template, say) is kept. */
    private static String stripComment(String line) {
        boolean single = false;
        boolean dbl = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\'' && !dbl) {
                single = !single;
            } else if (c == '"' && !single) {
                dbl = !dbl;
            } else if (c == '#' && !single && !dbl && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    /** The commands of the block of that kind, as the page has them. */
    List<String> block(String kind) {
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException(kind);
        }
        return blocks.get(kind);
    }

    /** {@code command} with the host override's default ports moved to {@code portPrefix} and JMX to {@code jmxBase}. */
    static String forRun(String command, int portPrefix, int jmxBase) {
        String moved = DEFAULT_PREFIX_PORT.matcher(command).replaceAll("127.0.0.1:" + portPrefix + "$1");
        return moved.replace(DOC_JMX_PORT, "JMX_PORT=" + jmxBase);
    }

    /** NAME and VALUE of an {@code export NAME=VALUE} line, or null for any other command. */
    static Map.Entry<String, String> export(String command) {
        Matcher m = EXPORT.matcher(command);
        return m.matches() ? Map.entry(m.group(1), m.group(2)) : null;
    }

    /**
     * The engine block's {@code dockerd} command as an argument list, {@code $D} replaced by {@code stateDir}, without
     * its redirection and {@code &} (the caller sends its output to {@code $D/dockerd.log} and keeps its process).
     */
    List<String> dockerdCommand(Path stateDir) {
        String line = block("engine").stream().filter(c -> c.startsWith("dockerd ")).findFirst()
                .orElseThrow(() -> new AssertionError("no dockerd command in the ```sh engine block"));
        int redirect = line.indexOf(" >");
        String command = (redirect < 0 ? line : line.substring(0, redirect)).replace("&", "").strip();
        return List.of(command.replace("$D", stateDir.toString()).split(" "));
    }
}
