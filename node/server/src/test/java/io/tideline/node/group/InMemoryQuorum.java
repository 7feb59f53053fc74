package io.tideline.node.group;

import io.tideline.node.controller.ControllerResult;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.controller.MetadataController;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.FenceBroker;
import io.tideline.proto.metadata.RegisterBroker;
import io.tideline.proto.metadata.UnfenceBroker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The metadata quorum for coordinator tests: the real controller logic and replay, one index per command, and
 * every coordinator's image tracker fed after each one. With {@link #hold} commands wait until released, which
 * is how a test keeps an entry "in flight".
 */
final class InMemoryQuorum implements GroupQuorum {
    private final MetadataController controller = new MetadataController(new ControllerSettings(false));
    private final List<ImageTracker> trackers = new ArrayList<>();
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private final List<ControllerCommand> applied = new ArrayList<>();
    private MetadataImage image = MetadataImage.EMPTY;
    private long offset;
    private boolean hold;

    private record Held(ControllerCommand command, CompletableFuture<ControllerResponse> answer) {
    }

    synchronized ImageTracker tracker() {
        ImageTracker t = new ImageTracker(image);
        trackers.add(t);
        return t;
    }

    InMemoryQuorum brokers(int... ids) {
        for (int id : ids) {
            long epoch = apply(ControllerCommand.newBuilder().setRegisterBroker(RegisterBroker.newBuilder()
                    .setBrokerId(id).setIncarnationId("inc-" + id)).build()).getBrokerEpoch();
            apply(ControllerCommand.newBuilder().setUnfenceBroker(UnfenceBroker.newBuilder().setBrokerId(id)
                    .setBrokerEpoch(epoch)).build());
        }
        return this;
    }

    void fence(int id) {
        apply(ControllerCommand.newBuilder().setFenceBroker(FenceBroker.newBuilder().setBrokerId(id)
                .setBrokerEpoch(image.brokers().get(id).getBrokerEpoch())).build());
    }

    synchronized void hold(boolean on) {
        hold = on;
    }

    /** Applies the oldest held command; false when none is held. */
    boolean releaseOne() {
        Held h;
        synchronized (this) {
            h = held.poll();
        }
        if (h == null) {
            return false;
        }
        h.answer.complete(apply(h.command));
        return true;
    }

    /** Fails the oldest held command as an unreachable quorum would; false when none is held. */
    boolean failOne() {
        Held h;
        synchronized (this) {
            h = held.poll();
        }
        if (h == null) {
            return false;
        }
        h.answer.completeExceptionally(new IllegalStateException("the quorum did not answer"));
        return true;
    }

    synchronized int heldCount() {
        return held.size();
    }

    @Override
    public CompletableFuture<ControllerResponse> submit(ControllerCommand command) {
        synchronized (this) {
            if (hold) {
                Held h = new Held(command, new CompletableFuture<>());
                held.add(h);
                return h.answer;
            }
        }
        return CompletableFuture.completedFuture(apply(command));
    }

    ControllerResponse apply(ControllerCommand command) {
        MetadataImage next;
        ControllerResult result;
        synchronized (this) {
            offset++;
            result = controller.apply(image, command, offset, 1);
            image = ImageReplayer.replay(image, result.records(), offset, 1);
            next = image;
            applied.add(command);
        }
        trackers.forEach(t -> t.onImage(next));
        return result.response();
    }

    synchronized MetadataImage image() {
        return image;
    }

    synchronized long count(ControllerCommand.CommandCase kind) {
        return applied.stream().filter(c -> c.getCommandCase() == kind).count();
    }
}
