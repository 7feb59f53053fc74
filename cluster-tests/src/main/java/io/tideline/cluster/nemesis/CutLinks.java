package io.tideline.cluster.nemesis;

import java.util.List;

/**
 * Cuts links (black hole, connections held open, bytes dropped; see LinkProxy) at once: one follower's fetches
 * from one leader, or every replication link of a node, which leaves it in the quorum and the leader of what
 * it leads but cut off from its followers and its leaders. Each link is healed by its own {@link HealLink}.
 */
public record CutLinks(List<String> links) implements Operation {
    public CutLinks {
        links = List.copyOf(links);
        if (links.isEmpty()) {
            throw new IllegalArgumentException("no links to cut");
        }
    }

    @Override
    public String kind() {
        return "cut";
    }

    @Override
    public void update(ClusterModel model) {
        for (String link : links) {
            model.breakLink(link, new HealLink(link));
        }
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().network().cut(links);
        return "cut";
    }

    @Override
    public String toString() {
        return "cut " + links;
    }
}
