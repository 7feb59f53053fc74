package io.tideline.cluster.netns;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * iptables DROP rules in a namespace's OUTPUT chain that cut directed links between its nodes.
 *
 * <p>Why by owner group and not by source address: on loopback the kernel picks 127.0.0.1 as the source of a
 * connection to 127.0.0.12 unless the socket binds its source (every route of the local table says {@code src
 * 127.0.0.1}), and neither gRPC's channels nor Ratis bind one, so a rule on {@code -s 127.0.0.11} would never
 * match. Each node process instead runs with a primary group of its own ({@link NamespaceNode#gid}), and a
 * link "from -> to" is cut by dropping the packets that sockets of {@code from}'s group send to {@code to}'s
 * address ({@code -m owner --gid-owner G -d A}), optionally to some of its ports only. Every TCP connection's
 * initiator sends to the other's address, so dropping its packets kills the connection both ways (the answers
 * to it go to 127.0.0.1 and are not matched, but nothing is acknowledged any more). Clients of the suite (the
 * driver, the CLI) run with group 0 and are never matched.
 *
 * <p>The rules are in the namespace's own netfilter tables; they vanish with it. Thread-safe (synchronized).
 */
public final class Firewall {
    private final NetworkNamespace ns;
    private final List<List<String>> rules = new ArrayList<>();

    Firewall(NetworkNamespace ns) {
        this.ns = ns;
    }

    /** Drops what {@code from} sends to {@code to} on {@code ports} (all ports when none are given). */
    public synchronized void cut(NamespaceNode from, NamespaceNode to, int... ports) {
        List<String> spec = new ArrayList<>(List.of("OUTPUT", "-m", "owner", "--gid-owner", String.valueOf(from.gid()),
                "-d", to.address(), "-p", "tcp"));
        if (ports.length > 0) {
            spec.addAll(List.of("-m", "multiport", "--dports", joined(ports)));
        }
        spec.addAll(List.of("-j", "DROP"));
        iptables("-A", spec);
        rules.add(spec);
    }

    /** Removes every rule {@link #cut} added. */
    public synchronized void healAll() {
        for (List<String> spec : rules) {
            iptables("-D", spec);
        }
        rules.clear();
    }

    /** How many rules are in force. */
    public synchronized int ruleCount() {
        return rules.size();
    }

    /**
     * The packets the DROP rules of OUTPUT have matched so far, summed: above 0 proves the cut really stopped
     * traffic of the nodes, and is not a rule that matches nothing.
     */
    public long droppedPackets() {
        String out = ns.exec("iptables", "-L", "OUTPUT", "-v", "-x", "-n");
        long total = 0;
        Matcher m = Pattern.compile("(?m)^\\s*(\\d+)\\s+\\d+\\s+DROP\\s").matcher(out);
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    /** The OUTPUT chain as iptables lists it, with counters (for failure messages). */
    public String listing() {
        return ns.exec("iptables", "-L", "OUTPUT", "-v", "-x", "-n");
    }

    private void iptables(String action, List<String> spec) {
        List<String> command = new ArrayList<>(List.of("iptables", "-w", action));
        command.addAll(spec);
        ns.exec(command.toArray(String[]::new));
    }

    private static String joined(int[] ports) {
        StringBuilder sb = new StringBuilder();
        for (int p : ports) {
            sb.append(sb.length() == 0 ? "" : ",").append(p);
        }
        return sb.toString();
    }
}
