package io.tideline.node.controller;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.BrokerFenceChangeRecord;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ControlledShutdown;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.FenceBroker;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.RegisterBroker;
import io.tideline.proto.metadata.UnfenceBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Broker membership: registration, fencing (session expired), unfencing (heartbeating and caught up)
 * and controlled shutdown, with the partition changes each implies.
 */
final class BrokerHandlers {
    private final ControllerSettings settings;

    BrokerHandlers(ControllerSettings settings) {
        this.settings = settings;
    }

    /**
     * A new incarnation gets a new broker epoch (the Raft index) and starts fenced: it becomes eligible
     * only after it heartbeats with its metadata caught up. The same incarnation registering again (a
     * retry) gets its existing epoch back and changes nothing.
     */
    ControllerResult register(MetadataImage image, RegisterBroker cmd, long offset, long timestampMs) {
        if (cmd.getBrokerId() < 0) {
            return ControllerResult.error(Errors.INVALID_REQUEST, "broker id must be >= 0, got " + cmd.getBrokerId());
        }
        if (cmd.getIncarnationId().isEmpty()) {
            return ControllerResult.error(Errors.INVALID_REQUEST, "a registration needs an incarnation id");
        }
        BrokerRegistrationRecord existing = image.brokers().get(cmd.getBrokerId());
        if (existing != null && existing.getIncarnationId().equals(cmd.getIncarnationId())) {
            return ControllerResult.of(ControllerResponse.newBuilder().setBrokerEpoch(existing.getBrokerEpoch()).build(), List.of());
        }
        List<MetadataRecord> records = new ArrayList<>();
        if (existing != null && !existing.getFenced()) {
            // The old incarnation is gone (the process restarted): its leaderships must move first.
            records.addAll(moveAwayFrom(image, cmd.getBrokerId(), ChangeReason.BROKER_FENCED, timestampMs,
                    "broker " + cmd.getBrokerId() + " re-registered with a new incarnation", false));
        }
        records.add(MetadataRecord.newBuilder().setBrokerRegistration(BrokerRegistrationRecord.newBuilder()
                .setBrokerId(cmd.getBrokerId()).setIncarnationId(cmd.getIncarnationId())
                .addAllEndpoints(cmd.getEndpointsList()).setRack(cmd.getRack()).setMetricsUrl(cmd.getMetricsUrl())
                .setBrokerEpoch(offset).setFenced(true)).build());
        return ControllerResult.of(ControllerResponse.newBuilder().setBrokerEpoch(offset).build(), records);
    }

    /** Session expired: out of every ISR it is in (never emptying one), its leaderships moved. */
    ControllerResult fence(MetadataImage image, FenceBroker cmd, long timestampMs) {
        Errors check = checkEpoch(image, cmd.getBrokerId(), cmd.getBrokerEpoch());
        if (check != Errors.NONE) {
            return ControllerResult.error(check, "broker " + cmd.getBrokerId() + " epoch " + cmd.getBrokerEpoch());
        }
        if (image.brokers().get(cmd.getBrokerId()).getFenced()) {
            return ControllerResult.of(ControllerResponse.getDefaultInstance(), List.of());
        }
        List<MetadataRecord> records = new ArrayList<>(moveAwayFrom(image, cmd.getBrokerId(), ChangeReason.BROKER_FENCED,
                timestampMs, "broker " + cmd.getBrokerId() + " fenced: no heartbeat within broker.session.timeout.ms", true));
        records.add(fenceChange(cmd.getBrokerId(), cmd.getBrokerEpoch(), true, false));
        return ControllerResult.of(ControllerResponse.getDefaultInstance(), records);
    }

    /**
     * The broker is back: eligible again, and every offline partition it can lead (in its ISR, or any
     * replica with unclean election) gets it as leader.
     */
    ControllerResult unfence(MetadataImage image, UnfenceBroker cmd, long timestampMs) {
        Errors check = checkEpoch(image, cmd.getBrokerId(), cmd.getBrokerEpoch());
        if (check != Errors.NONE) {
            return ControllerResult.error(check, "broker " + cmd.getBrokerId() + " epoch " + cmd.getBrokerEpoch());
        }
        BrokerRegistrationRecord b = image.brokers().get(cmd.getBrokerId());
        if (!b.getFenced() && !b.getInControlledShutdown()) {
            return ControllerResult.of(ControllerResponse.getDefaultInstance(), List.of());
        }
        List<MetadataRecord> records = new ArrayList<>();
        MetadataRecord change = fenceChange(cmd.getBrokerId(), cmd.getBrokerEpoch(), false, false);
        records.add(change);
        MetadataImage working = ImageReplayer.replay(image, List.of(change), image.offset(), image.term());
        for (TopicImage t : working.topics().values()) {
            boolean unclean = TopicHandlers.uncleanElection(working, t, settings);
            for (PartitionRecord p : t.partitions().values()) {
                if (p.getLeader() != LeaderElection.NO_LEADER || !p.getReplicasList().contains(cmd.getBrokerId())) {
                    continue;
                }
                int leader = LeaderElection.cleanLeader(working, p.getReplicasList(), p.getIsrList(), Set.of());
                List<Integer> isr = p.getIsrList();
                if (leader == LeaderElection.NO_LEADER && unclean) {
                    leader = LeaderElection.uncleanLeader(working, p.getReplicasList(), Set.of());
                    isr = leader == LeaderElection.NO_LEADER ? isr : List.of(leader);
                }
                PartitionRecord updated = PartitionChanges.change(p, isr, leader);
                if (updated != null) {
                    records.add(PartitionChanges.record(updated, ChangeReason.BROKER_UNFENCED, timestampMs,
                            "broker " + cmd.getBrokerId() + " unfenced; partition back online with leader " + leader));
                }
            }
        }
        return ControllerResult.of(ControllerResponse.getDefaultInstance(), records);
    }

    /**
     * A stopping broker: no longer eligible to lead; each partition it leads moves to another eligible
     * ISR member (one with no other stays where it is until the broker is gone), and it leaves the ISRs
     * it can leave without emptying them.
     */
    ControllerResult controlledShutdown(MetadataImage image, ControlledShutdown cmd, long timestampMs) {
        Errors check = checkEpoch(image, cmd.getBrokerId(), cmd.getBrokerEpoch());
        if (check != Errors.NONE) {
            return ControllerResult.error(check, "broker " + cmd.getBrokerId() + " epoch " + cmd.getBrokerEpoch());
        }
        BrokerRegistrationRecord b = image.brokers().get(cmd.getBrokerId());
        List<MetadataRecord> records = new ArrayList<>(moveAwayFrom(image, cmd.getBrokerId(),
                ChangeReason.CONTROLLED_SHUTDOWN, timestampMs, "broker " + cmd.getBrokerId() + " shutting down", false));
        if (!b.getInControlledShutdown()) {
            records.add(fenceChange(cmd.getBrokerId(), cmd.getBrokerEpoch(), b.getFenced(), true));
        }
        return ControllerResult.of(ControllerResponse.getDefaultInstance(), records);
    }

    /**
     * Partition changes that take {@code brokerId} out: leaderships it holds move to another eligible
     * ISR member (or, with {@code allowOffline}, the partition goes offline when there is none; with
     * unclean election any eligible replica takes over), and it leaves every ISR it is in unless that
     * would empty it: the last ISR member stays so it can lead again when it returns.
     */
    List<MetadataRecord> moveAwayFrom(MetadataImage image, int brokerId, ChangeReason reason, long timestampMs,
                                      String detail, boolean allowOffline) {
        List<MetadataRecord> records = new ArrayList<>();
        Set<Integer> excluded = Set.of(brokerId);
        for (TopicImage t : image.topics().values()) {
            boolean unclean = TopicHandlers.uncleanElection(image, t, settings);
            for (PartitionRecord p : t.partitions().values()) {
                boolean inIsr = p.getIsrList().contains(brokerId);
                boolean leads = p.getLeader() == brokerId;
                if (!inIsr && !leads) {
                    continue;
                }
                List<Integer> isr = new ArrayList<>(p.getIsrList());
                isr.remove(Integer.valueOf(brokerId));
                if (isr.isEmpty()) {
                    isr = new ArrayList<>(p.getIsrList());
                }
                int leader = p.getLeader();
                if (leads) {
                    leader = LeaderElection.cleanLeader(image, p.getReplicasList(), isr, excluded);
                    if (leader == LeaderElection.NO_LEADER && unclean && allowOffline) {
                        leader = LeaderElection.uncleanLeader(image, p.getReplicasList(), excluded);
                        if (leader != LeaderElection.NO_LEADER) {
                            isr = List.of(leader);
                        }
                    }
                    if (leader == LeaderElection.NO_LEADER && !allowOffline) {
                        // Controlled shutdown with nobody to take over: keep leading until it is gone.
                        leader = brokerId;
                        isr = new ArrayList<>(p.getIsrList());
                    }
                }
                PartitionRecord updated = PartitionChanges.change(p, isr, leader);
                if (updated != null) {
                    records.add(PartitionChanges.record(updated, reason, timestampMs, detail));
                }
            }
        }
        return records;
    }

    static Errors checkEpoch(MetadataImage image, int brokerId, long brokerEpoch) {
        BrokerRegistrationRecord b = image.brokers().get(brokerId);
        if (b == null) {
            return Errors.BROKER_NOT_AVAILABLE;
        }
        return b.getBrokerEpoch() == brokerEpoch ? Errors.NONE : Errors.STALE_BROKER_EPOCH;
    }

    private static MetadataRecord fenceChange(int brokerId, long epoch, boolean fenced, boolean inControlledShutdown) {
        return MetadataRecord.newBuilder().setBrokerFenceChange(BrokerFenceChangeRecord.newBuilder()
                .setBrokerId(brokerId).setBrokerEpoch(epoch).setFenced(fenced)
                .setInControlledShutdown(inControlledShutdown)).build();
    }
}
