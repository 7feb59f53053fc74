package io.tideline.cluster.nemesis;

/** Resets every connection on a link in flight, both sides; the link stays as it was (healthy, cut or delayed). */
public record DropConnections(String link) implements Operation {
    @Override
    public String kind() {
        return "drop-connections";
    }

    @Override
    public void update(ClusterModel model) {
        model.requireLink(link);
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().network().link(link).dropConnections();
        return "dropped";
    }

    @Override
    public String toString() {
        return "drop connections of " + link;
    }
}
