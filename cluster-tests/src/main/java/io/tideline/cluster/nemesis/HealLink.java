package io.tideline.cluster.nemesis;

/** Heals a cut or delayed link; connections that lost bytes during a cut are reset (see LinkProxy). */
public record HealLink(String link) implements Operation {
    @Override
    public String kind() {
        return "heal";
    }

    @Override
    public void update(ClusterModel model) {
        model.healLink(link);
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().network().heal(link);
        return "healed";
    }

    @Override
    public String toString() {
        return "heal " + link;
    }
}
