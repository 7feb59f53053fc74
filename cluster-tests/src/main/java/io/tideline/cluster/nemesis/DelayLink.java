package io.tideline.cluster.nemesis;

import java.time.Duration;

/** Holds every chunk on a link back by {@code delay}, each way; {@link HealLink} removes it. */
public record DelayLink(String link, Duration delay) implements Operation {
    @Override
    public String kind() {
        return "delay";
    }

    @Override
    public void update(ClusterModel model) {
        model.breakLink(link, new HealLink(link));
    }

    @Override
    public String apply(NemesisContext context) {
        context.cluster().network().link(link).delay(delay);
        return "delayed";
    }

    @Override
    public String toString() {
        return "delay " + link + " by " + delay.toMillis() + " ms";
    }
}
