package io.tideline.cluster.nemesis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The nemesis's own account of the faults in force: which nodes are down (killed, stopped, and later paused)
 * and which links are broken (cut or delayed), each with the operation that undoes it. Both the generator (to
 * plan a sequence from a seed alone) and the runner (to refuse a step that breaks an invariant before it
 * touches the cluster) keep one.
 *
 * <p>Invariants: every node is a voter of the metadata quorum, so at most {@code (n - 1) / 2} nodes are down
 * at once and the quorum keeps a majority, except for one deliberate loss of the majority
 * ({@link #loseQuorum}), which is taken only when nothing else is down and which nothing else joins; a node is
 * taken down only when up and brought up only when down; a link is broken only when healthy and healed only
 * when broken; a clock is skewed only when right and put right only when skewed. {@link #healing()} lists what
 * puts everything right again. Not thread-safe.
 */
public final class ClusterModel {
    private final List<Integer> nodes;
    private final Set<String> links;
    private final int maxDown;
    private final SortedMap<Integer, Operation> down = new TreeMap<>();
    private final SortedMap<String, Operation> broken = new TreeMap<>();
    private final SortedMap<Integer, Operation> skewed = new TreeMap<>();

    /** {@code links} are the names of the links the nemesis may break, as in the harness's network. */
    public ClusterModel(List<Integer> nodes, Collection<String> links) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("no nodes");
        }
        this.nodes = List.copyOf(new TreeSet<>(nodes));
        this.links = Collections.unmodifiableSet(new TreeSet<>(links));
        this.maxDown = (nodes.size() - 1) / 2;
    }

    public List<Integer> nodes() {
        return nodes;
    }

    /** How many nodes may be down at once: the quorum keeps a majority of its voters. */
    public int maxDown() {
        return maxDown;
    }

    public boolean canTakeDown() {
        return down.size() < maxDown;
    }

    public List<Integer> upNodes() {
        return nodes.stream().filter(n -> !down.containsKey(n)).toList();
    }

    public List<Integer> downNodes() {
        return List.copyOf(down.keySet());
    }

    /** The links in the model, sorted by name. */
    public List<String> links() {
        return List.copyOf(links);
    }

    public List<String> healthyLinks() {
        return links.stream().filter(l -> !broken.containsKey(l)).toList();
    }

    public List<String> brokenLinks() {
        return List.copyOf(broken.keySet());
    }

    /** Marks {@code node} down; {@code bringBack} is what brings it up again (a restart, a resume). */
    public void takeDown(int node, Operation bringBack) {
        requireNode(node);
        if (down.containsKey(node)) {
            throw new IllegalStateException("node " + node + " is already down (" + down.get(node) + " brings it back)");
        }
        if (!canTakeDown()) {
            throw new IllegalStateException("taking node " + node + " down would leave the quorum of " + nodes.size()
                    + " without a majority: " + down.keySet() + " are down already");
        }
        down.put(node, bringBack);
    }

    /** The operation that brings a down {@code node} back: the one its fault registered (restart, resume). */
    public Operation bringBack(int node) {
        Operation undo = down.get(node);
        if (undo == null) {
            throw new IllegalStateException("node " + node + " is not down");
        }
        return undo;
    }

    /**
     * Marks {@code nodes} down together, more than {@link #maxDown()}, so the quorum has no majority until
     * {@code bringBack} (which brings all of them back at once) runs. Allowed only when no node is down.
     */
    public void loseQuorum(List<Integer> nodes, Operation bringBack) {
        nodes.forEach(this::requireNode);
        if (!down.isEmpty()) {
            throw new IllegalStateException("the quorum is lost only from a whole cluster: " + down.keySet()
                    + " are down already");
        }
        if (new TreeSet<>(nodes).size() != nodes.size() || nodes.size() <= maxDown) {
            throw new IllegalArgumentException(nodes + " are not more than " + maxDown + " distinct nodes");
        }
        nodes.forEach(node -> down.put(node, bringBack));
    }

    public void bringUp(int node) {
        requireNode(node);
        if (down.remove(node) == null) {
            throw new IllegalStateException("node " + node + " is not down");
        }
    }

    /** Marks {@code link} broken (cut or delayed); {@code heal} is what heals it. */
    public void breakLink(String link, Operation heal) {
        requireLink(link);
        if (broken.containsKey(link)) {
            throw new IllegalStateException("link " + link + " is already broken");
        }
        broken.put(link, heal);
    }

    public void healLink(String link) {
        requireLink(link);
        if (broken.remove(link) == null) {
            throw new IllegalStateException("link " + link + " is not broken");
        }
    }

    public List<Integer> skewedNodes() {
        return List.copyOf(skewed.keySet());
    }

    public List<Integer> unskewedNodes() {
        return nodes.stream().filter(n -> !skewed.containsKey(n)).toList();
    }

    /** Marks {@code node}'s clock skewed; {@code putRight} is what sets it right again. */
    public void skewClock(int node, Operation putRight) {
        requireNode(node);
        if (skewed.containsKey(node)) {
            throw new IllegalStateException("node " + node + "'s clock is already skewed");
        }
        skewed.put(node, putRight);
    }

    public void unskewClock(int node) {
        requireNode(node);
        if (skewed.remove(node) == null) {
            throw new IllegalStateException("node " + node + "'s clock is not skewed");
        }
    }

    public void requireNode(int node) {
        if (!nodes.contains(node)) {
            throw new IllegalArgumentException("no node " + node + " in " + nodes);
        }
    }

    public void requireLink(String link) {
        if (!links.contains(link)) {
            throw new IllegalArgumentException("no link " + link + " in " + links);
        }
    }

    /**
     * The operations that undo every fault in force: nodes brought back first (by id; nodes taken down together
     * come back by one operation), then links healed, then clocks put right.
     */
    public List<Operation> healing() {
        List<Operation> undo = new ArrayList<>(new LinkedHashSet<>(down.values()));
        undo.addAll(broken.values());
        undo.addAll(skewed.values());
        return undo;
    }

    @Override
    public String toString() {
        return "down " + down.keySet() + ", broken links " + broken.keySet() + ", skewed clocks " + skewed.keySet();
    }
}
