package io.tideline.node.controller;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.AlterReassignments;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.FailedReplica;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.ReportFailedReplicas;
import io.tideline.proto.metadata.TargetReassignment;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Partition-level changes: ISR changes from leaders (AlterPartition), reassignments (KIP-455),
 * preferred leader elections and failed replicas reported by brokers.
 */
final class PartitionHandlers {
    private final ControllerSettings settings;

    PartitionHandlers(ControllerSettings settings) {
        this.settings = settings;
    }

    /**
     * An ISR change proposed by the partition's leader. Accepted only from the current leader at the
     * current leader epoch and partition epoch, for an ISR that is a subset of the replicas containing
     * the leader, whose added members are eligible. A reassignment whose adding replicas are all in the
     * new ISR completes in the same step.
     */
    ControllerResult alterPartition(MetadataImage image, AlterPartition cmd, long timestampMs) {
        TopicImage topic = image.topicById(cmd.getTopicId()).orElse(null);
        PartitionRecord p = topic == null ? null : topic.partition(cmd.getPartition());
        if (p == null) {
            return ControllerResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "no partition " + cmd.getPartition() + " of topic id " + cmd.getTopicId());
        }
        Errors epoch = BrokerHandlers.checkEpoch(image, cmd.getBrokerId(), cmd.getBrokerEpoch());
        if (epoch != Errors.NONE) {
            return ControllerResult.error(epoch, "broker " + cmd.getBrokerId() + " epoch " + cmd.getBrokerEpoch());
        }
        if (cmd.getLeaderEpoch() < p.getLeaderEpoch()) {
            return ControllerResult.error(Errors.FENCED_LEADER_EPOCH, "leader epoch " + cmd.getLeaderEpoch()
                    + " is older than the current " + p.getLeaderEpoch());
        }
        if (cmd.getLeaderEpoch() > p.getLeaderEpoch()) {
            return ControllerResult.error(Errors.UNKNOWN_LEADER_EPOCH, "leader epoch " + cmd.getLeaderEpoch()
                    + " is newer than the current " + p.getLeaderEpoch());
        }
        if (cmd.getBrokerId() != p.getLeader()) {
            return ControllerResult.error(Errors.NOT_LEADER_OR_FOLLOWER, "broker " + cmd.getBrokerId()
                    + " does not lead " + topic.name() + "-" + p.getPartition() + " (leader " + p.getLeader() + ")");
        }
        if (cmd.getPartitionEpoch() != p.getPartitionEpoch()) {
            return ControllerResult.error(Errors.INVALID_UPDATE_VERSION, "partition epoch " + cmd.getPartitionEpoch()
                    + " does not match the current " + p.getPartitionEpoch());
        }
        List<Integer> isr = cmd.getNewIsrList();
        if (isr.isEmpty() || !isr.contains(p.getLeader()) || new HashSet<>(isr).size() != isr.size()
                || !p.getReplicasList().containsAll(isr)) {
            return ControllerResult.error(Errors.INVALID_REQUEST, "the ISR " + isr + " must be distinct replicas of "
                    + p.getReplicasList() + " including the leader " + p.getLeader());
        }
        for (int r : isr) {
            if (!p.getIsrList().contains(r) && !LeaderElection.eligible(image, r, Set.of())) {
                return ControllerResult.error(Errors.INELIGIBLE_REPLICA, "replica " + r
                        + " cannot join the ISR: it is fenced, shutting down or not registered");
            }
        }
        List<MetadataRecord> records = new ArrayList<>();
        PartitionRecord updated = PartitionChanges.change(p, isr, p.getLeader());
        if (updated == null) {
            updated = p;
        } else {
            ChangeReason reason = cmd.getReason() == ChangeReason.CHANGE_REASON_UNSPECIFIED
                    ? (isr.size() < p.getIsrCount() ? ChangeReason.LAGGING : ChangeReason.CAUGHT_UP) : cmd.getReason();
            records.add(PartitionChanges.record(updated, reason, timestampMs, describeIsrChange(p.getIsrList(), isr)));
        }
        PartitionRecord completed = completeReassignmentIfReady(image, updated);
        if (completed != null) {
            records.add(PartitionChanges.record(completed, ChangeReason.REASSIGNMENT, timestampMs,
                    "reassignment completed: replicas " + completed.getReplicasList()));
            updated = completed;
        }
        return ControllerResult.of(ControllerResponse.newBuilder().setPartition(updated).build(), records);
    }

    private static String describeIsrChange(List<Integer> before, List<Integer> after) {
        List<Integer> removed = new ArrayList<>(before);
        removed.removeAll(after);
        List<Integer> added = new ArrayList<>(after);
        added.removeAll(before);
        return "ISR " + before + " -> " + after + (removed.isEmpty() ? "" : ", removed " + removed)
                + (added.isEmpty() ? "" : ", added " + added);
    }

    /**
     * When every adding replica is in the ISR: replicas become the target (the replicas not being
     * removed), the ISR keeps only target replicas, and a leader being removed hands over to the first
     * eligible target replica in the ISR. Null when not ready (or nothing in progress).
     */
    static PartitionRecord completeReassignmentIfReady(MetadataImage image, PartitionRecord p) {
        if (p.getTargetReplicasCount() == 0 && p.getAddingReplicasCount() == 0 && p.getRemovingReplicasCount() == 0) {
            return null;
        }
        if (!p.getIsrList().containsAll(p.getAddingReplicasList())) {
            return null;
        }
        List<Integer> target = new ArrayList<>(p.getTargetReplicasList());
        if (target.isEmpty()) { // recorded before target_replicas existed: replicas less the removing ones
            target.addAll(p.getReplicasList());
            target.removeAll(p.getRemovingReplicasList());
        }
        List<Integer> isr = new ArrayList<>(p.getIsrList());
        isr.retainAll(target);
        if (isr.isEmpty()) {
            return null; // nobody of the target is in sync yet
        }
        int leader = p.getLeader();
        if (!target.contains(leader)) {
            leader = LeaderElection.cleanLeader(image, target, isr, Set.of());
            if (leader == LeaderElection.NO_LEADER) {
                return null; // wait until a target replica can lead
            }
        }
        return PartitionChanges.change(p, target, isr, leader, List.of(), List.of(), List.of());
    }

    /**
     * Starts, replaces or cancels reassignments (KIP-455): adding = target - original, removing =
     * original - target; while in progress the replicas are the original ones followed by the adding
     * ones (current + target) and the target order is kept aside. An empty target cancels and restores
     * the original replicas exactly.
     */
    ControllerResult alterReassignments(MetadataImage image, AlterReassignments cmd, long timestampMs) {
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        MetadataImage working = image;
        for (TargetReassignment target : cmd.getReassignmentsList()) {
            String name = target.getTopic() + "-" + target.getPartition();
            ItemResult.Builder item = ItemResult.newBuilder().setName(name);
            PartitionRecord p = working.partition(target.getTopic(), target.getPartition()).orElse(null);
            if (p == null) {
                response.addResults(item.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage("no partition " + name));
                continue;
            }
            List<Integer> original = new ArrayList<>(p.getReplicasList());
            original.removeAll(p.getAddingReplicasList());
            PartitionRecord updated;
            String detail;
            if (target.getReplicasCount() == 0) {
                if (p.getAddingReplicasCount() == 0 && p.getRemovingReplicasCount() == 0) {
                    response.addResults(item.setErrorCode(Errors.NO_REASSIGNMENT_IN_PROGRESS.code())
                            .setErrorMessage("no reassignment of " + name + " is in progress"));
                    continue;
                }
                updated = revert(working, p, original);
                detail = "reassignment cancelled: replicas back to " + original;
            } else {
                List<Integer> replicas = target.getReplicasList();
                String invalid = invalidTarget(working, replicas);
                if (invalid != null) {
                    response.addResults(item.setErrorCode(Errors.INVALID_REPLICA_ASSIGNMENT.code()).setErrorMessage(invalid));
                    continue;
                }
                // From the current replicas, as Kafka does: a new target over one in progress turns replicas
                // that were being added, and are not in it, into ones being removed. They stay until the new
                // target is in sync, so the ISR (which may be only them) stays within the replicas.
                List<Integer> current = p.getReplicasList();
                List<Integer> adding = new ArrayList<>(replicas);
                adding.removeAll(current);
                List<Integer> removing = new ArrayList<>(current);
                removing.removeAll(replicas);
                // While in progress: the current replicas in order, then the ones being added.
                LinkedHashSet<Integer> all = new LinkedHashSet<>(current);
                all.addAll(adding);
                List<Integer> isr = new ArrayList<>(p.getIsrList());
                isr.retainAll(all);
                PartitionRecord started = PartitionChanges.change(p, new ArrayList<>(all), isr.isEmpty() ? p.getIsrList() : isr,
                        p.getLeader(), adding, removing, replicas);
                updated = started == null ? p : started;
                PartitionRecord completed = completeReassignmentIfReady(working, updated);
                if (completed != null) {
                    updated = PartitionChanges.change(p, completed.getReplicasList(), completed.getIsrList(),
                            completed.getLeader(), List.of(), List.of(), List.of());
                    detail = "reassignment to " + replicas + " completed at once (no replica to add)";
                } else {
                    detail = "reassignment to " + replicas + " started: adding " + adding + ", removing " + removing;
                }
            }
            response.addResults(item.setErrorCode(Errors.NONE.code()));
            if (updated != null && !updated.equals(p)) {
                MetadataRecord record = PartitionChanges.record(updated, ChangeReason.REASSIGNMENT, timestampMs, detail);
                records.add(record);
                working = io.tideline.node.metadata.ImageReplayer.replay(working, List.of(record), working.offset(), working.term());
            }
        }
        return ControllerResult.of(response.build(), records);
    }

    private static String invalidTarget(MetadataImage image, List<Integer> replicas) {
        if (new HashSet<>(replicas).size() != replicas.size()) {
            return "the target replicas " + replicas + " contain duplicates";
        }
        for (int r : replicas) {
            if (!image.brokers().containsKey(r)) {
                return "the target replicas " + replicas + " name broker " + r + ", which is not registered";
            }
        }
        return null;
    }

    /** Cancel: back to the original replicas; a leader that is not one of them hands over. */
    private static PartitionRecord revert(MetadataImage image, PartitionRecord p, List<Integer> original) {
        List<Integer> isr = new ArrayList<>(p.getIsrList());
        isr.retainAll(original);
        int leader = p.getLeader();
        if (!original.contains(leader)) {
            leader = LeaderElection.cleanLeader(image, original, isr, Set.of());
        }
        if (isr.isEmpty()) {
            isr = new ArrayList<>(original);
        }
        return PartitionChanges.change(p, original, isr, leader, List.of(), List.of(), List.of());
    }

    /** Preferred leader election: the first replica leads again if it is in the ISR and eligible. */
    /** Kafka's ElectionType.UNCLEAN; 0 (PREFERRED) is the default of the field. */
    static final int UNCLEAN = 1;

    ControllerResult electLeaders(MetadataImage image, ElectLeaders cmd, long timestampMs) {
        List<TopicPartitionRef> targets = new ArrayList<>(cmd.getPartitionsList());
        if (targets.isEmpty()) {
            for (TopicImage t : image.topics().values()) {
                for (int p : t.partitions().keySet()) {
                    targets.add(TopicPartitionRef.newBuilder().setTopic(t.name()).setPartition(p).build());
                }
            }
        }
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        for (TopicPartitionRef ref : targets) {
            String name = ref.getTopic() + "-" + ref.getPartition();
            ItemResult.Builder item = ItemResult.newBuilder().setName(name);
            PartitionRecord p = image.partition(ref.getTopic(), ref.getPartition()).orElse(null);
            if (p == null) {
                response.addResults(item.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage("no partition " + name));
                continue;
            }
            if (cmd.getElectionType() == UNCLEAN && cmd.getOnlyWhereEnabled()
                    && !TopicHandlers.uncleanElection(image, image.topic(ref.getTopic()).orElseThrow(), settings)) {
                // The setting was turned off after the scan that asked: the partition stays offline.
                response.addResults(item.setErrorCode(Errors.ELECTION_NOT_NEEDED.code())
                        .setErrorMessage("unclean.leader.election.enable is false for " + ref.getTopic()));
                continue;
            }
            if (cmd.getElectionType() == UNCLEAN) {
                records.addAll(unclean(image, p, name, item, timestampMs));
                response.addResults(item);
                continue;
            }
            int preferred = p.getReplicas(0);
            if (p.getLeader() == preferred) {
                response.addResults(item.setErrorCode(Errors.ELECTION_NOT_NEEDED.code())
                        .setErrorMessage("broker " + preferred + " leads " + name + " already"));
                continue;
            }
            if (!p.getIsrList().contains(preferred) || !LeaderElection.eligible(image, preferred, Set.of())) {
                response.addResults(item.setErrorCode(Errors.PREFERRED_LEADER_NOT_AVAILABLE.code())
                        .setErrorMessage("the preferred leader " + preferred + " of " + name + " is not in the ISR or not eligible"));
                continue;
            }
            PartitionRecord updated = PartitionChanges.change(p, p.getIsrList(), preferred);
            records.add(PartitionChanges.record(updated, ChangeReason.PREFERRED_LEADER_ELECTION, timestampMs,
                    "preferred leader " + preferred + " elected (was " + p.getLeader() + ")"));
            response.addResults(item.setErrorCode(Errors.NONE.code()));
        }
        return ControllerResult.of(response.build(), records);
    }

    /**
     * Kafka's unclean election, asked for by an operator: a partition without a leader gets the first
     * eligible replica in replica order as leader and sole ISR member, even one that was not in sync
     * (records it lacks are lost). A partition with a leader needs none (ELECTION_NOT_NEEDED).
     */
    private static List<MetadataRecord> unclean(MetadataImage image, PartitionRecord p, String name,
                                                ItemResult.Builder item, long timestampMs) {
        if (p.getLeader() != LeaderElection.NO_LEADER) {
            item.setErrorCode(Errors.ELECTION_NOT_NEEDED.code()).setErrorMessage("broker " + p.getLeader()
                    + " leads " + name + " already");
            return List.of();
        }
        for (int r : p.getReplicasList()) {
            if (LeaderElection.eligible(image, r, Set.of())) {
                PartitionRecord updated = PartitionChanges.change(p, List.of(r), r);
                item.setErrorCode(Errors.NONE.code());
                return List.of(PartitionChanges.record(updated, ChangeReason.UNCLEAN_LEADER_ELECTION, timestampMs,
                        "unclean election of " + r + " (ISR was " + p.getIsrList() + ")"));
            }
        }
        item.setErrorCode(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE.code()).setErrorMessage("no replica of " + name
                + " " + p.getReplicasList() + " is on a live, unfenced broker");
        return List.of();
    }

    /**
     * A replica whose log dir failed cannot lead nor stay in sync: it leaves the ISR (unless it is the
     * last member, which keeps the partition's history of who was in sync) and, if it led, the first
     * eligible ISR member takes over under a new leader epoch, or the partition goes offline.
     */
    private static PartitionRecord withoutReplicaOnFailedDir(MetadataImage image, PartitionRecord p, int brokerId) {
        List<Integer> isr = new ArrayList<>(p.getIsrList());
        if (isr.size() > 1) {
            isr.remove(Integer.valueOf(brokerId));
        }
        int leader = p.getLeader();
        if (leader == brokerId) {
            leader = LeaderElection.cleanLeader(image, p.getReplicasList(), isr, java.util.Set.of(brokerId));
        }
        return PartitionChanges.change(p, isr, leader);
    }

    /**
     * A replica halted below its leader's log start offset (the only failure besides a log dir's) goes into
     * the partition's history with reason OUT_OF_RANGE, so that "why is it under-replicated" has its answer
     * there. Normally it left the ISR already (LAGGING: it cannot fall below the log start offset while the
     * high watermark waits for it); if it is still in the ISR (its broker lost data) it leaves it now. An
     * entry that changes nothing keeps the partition epoch, so no broker acts on it.
     */
    private static MetadataRecord outOfRange(PartitionRecord p, int brokerId, String reason, long timestampMs) {
        List<Integer> isr = new ArrayList<>(p.getIsrList());
        PartitionRecord changed = null;
        if (brokerId != p.getLeader() && isr.size() > 1 && isr.remove(Integer.valueOf(brokerId))) {
            changed = PartitionChanges.change(p, isr, p.getLeader());
        }
        return PartitionChanges.record(changed == null ? p : changed, ChangeReason.OUT_OF_RANGE, timestampMs,
                "replica " + brokerId + " FAILED: " + reason);
    }

    /** Replicas a broker cannot serve (e.g. halted on OFFSET_OUT_OF_RANGE), or no longer failed. */
    ControllerResult reportFailedReplicas(MetadataImage image, ReportFailedReplicas cmd, long timestampMs) {
        Errors epoch = BrokerHandlers.checkEpoch(image, cmd.getBrokerId(), cmd.getBrokerEpoch());
        if (epoch != Errors.NONE) {
            return ControllerResult.error(epoch, "broker " + cmd.getBrokerId() + " epoch " + cmd.getBrokerEpoch());
        }
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        for (FailedReplica f : cmd.getReplicasList()) {
            ItemResult.Builder item = ItemResult.newBuilder().setName(f.getTopicId() + "-" + f.getPartition());
            TopicImage t = image.topicById(f.getTopicId()).orElse(null);
            if (t == null || t.partition(f.getPartition()) == null) {
                response.addResults(item.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                continue;
            }
            records.add(MetadataRecord.newBuilder().setFailedReplica(FailedReplicaRecord.newBuilder()
                    .setTopicId(f.getTopicId()).setPartition(f.getPartition()).setBrokerId(cmd.getBrokerId())
                    .setReason(f.getReason()).setSinceMs(timestampMs).setCleared(f.getCleared())).build());
            if (f.getStorageError() && !f.getCleared()) {
                PartitionRecord offline = withoutReplicaOnFailedDir(image, t.partition(f.getPartition()), cmd.getBrokerId());
                if (offline != null) {
                    records.add(PartitionChanges.record(offline, ChangeReason.LOG_DIR_FAILURE, timestampMs,
                            "broker " + cmd.getBrokerId() + " log dir failed: " + f.getReason()));
                }
            } else if (!f.getCleared()) {
                records.add(outOfRange(t.partition(f.getPartition()), cmd.getBrokerId(), f.getReason(), timestampMs));
            }
            response.addResults(item.setErrorCode(Errors.NONE.code()));
        }
        return ControllerResult.of(response.build(), records);
    }
}
