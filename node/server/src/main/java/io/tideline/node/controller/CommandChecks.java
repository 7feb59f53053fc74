package io.tideline.node.controller;

import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.AlterBrokerConfigs;
import io.tideline.proto.metadata.AlterConfigs;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.AlterReassignments;
import io.tideline.proto.metadata.CommitOffsets;
import io.tideline.proto.metadata.CommittedOffset;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreatePartitions;
import io.tideline.proto.metadata.CreatePartitionsItem;
import io.tideline.proto.metadata.CreateTopics;
import io.tideline.proto.metadata.DeleteGroupOffsets;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.proto.metadata.ExpireGroups;
import io.tideline.proto.metadata.FailedReplica;
import io.tideline.proto.metadata.GroupMemberRecord;
import io.tideline.proto.metadata.GroupMetadataRecord;
import io.tideline.proto.metadata.GroupOffsetCommit;
import io.tideline.proto.metadata.RegisterBroker;
import io.tideline.proto.metadata.ReplicaAssignment;
import io.tideline.proto.metadata.ReportFailedReplicas;
import io.tideline.proto.metadata.TargetReassignment;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.List;

/**
 * The checks of a controller command that need no image: sizes, counts, string lengths and ids
 * (docs/behaviours.md B100-B103). They run twice with the same outcome: in the controller client before a
 * command is proposed, so a bad command never enters the Raft log, and first thing in
 * {@link MetadataController#apply}, because an entry already in the log (written by an older version, or
 * sent to the quorum by something else than our client) has not been through the first run. What they
 * bound is what makes the rest of apply's work bounded: after them, every loop of the handlers runs over
 * the command's own elements or over at most {@link #MAX_PARTITIONS_PER_REQUEST} new partitions, and the
 * image-dependent checks (existence, current counts, {@code max.partitions}) run before anything is
 * allocated.
 *
 * <p>Stateless apart from its settings; safe for concurrent use.
 */
public final class CommandChecks {
    /**
     * The most partitions one CreateTopics or CreatePartitions may add, and the most items any user-initiated
     * command may name: Kafka's MAX_RECORDS_PER_USER_OP.
     */
    public static final int MAX_PARTITIONS_PER_REQUEST = 10_000;
    public static final int MAX_ITEMS_PER_REQUEST = 10_000;
    /** Kafka's protocol bound of a STRING (an int16 length): no string of a command is longer. */
    public static final int MAX_STRING_LENGTH = Short.MAX_VALUE;
    /** A replication factor, as Kafka's int16. */
    public static final int MAX_REPLICATION_FACTOR = Short.MAX_VALUE;
    /** A node has a handful of listeners. */
    static final int MAX_ENDPOINTS = 64;

    static final String TOO_MANY_PARTITIONS = "Excessively large number of partitions per request";

    /** Why a command is refused: the error its submitter gets, and the reason the voters log. */
    public record Refusal(Errors error, String message) {
        public ControllerResult result() {
            return ControllerResult.error(error, message);
        }
    }

    private final int maxPartitions;

    public CommandChecks(ControllerSettings settings) {
        this.maxPartitions = settings.maxPartitions();
    }

    /** Null when the command may go on to the controller, else why not. */
    public Refusal check(ControllerCommand command) {
        return switch (command.getCommandCase()) {
            case REGISTER_BROKER -> registerBroker(command.getRegisterBroker());
            case UNFENCE_BROKER -> brokerId(command.getUnfenceBroker().getBrokerId());
            case FENCE_BROKER -> brokerId(command.getFenceBroker().getBrokerId());
            case CONTROLLED_SHUTDOWN -> brokerId(command.getControlledShutdown().getBrokerId());
            case CREATE_TOPICS -> createTopics(command.getCreateTopics());
            case DELETE_TOPICS -> strings("topic names", command.getDeleteTopics().getNamesList(), MAX_ITEMS_PER_REQUEST);
            case CREATE_PARTITIONS -> createPartitions(command.getCreatePartitions());
            case ALTER_CONFIGS -> alterConfigs(command.getAlterConfigs());
            case ALTER_BROKER_CONFIGS -> alterBrokerConfigs(command.getAlterBrokerConfigs());
            case ALLOCATE_PRODUCER_IDS -> brokerId(command.getAllocateProducerIds().getBrokerId());
            case ALTER_PARTITION -> alterPartition(command.getAlterPartition());
            case ALTER_REASSIGNMENTS -> alterReassignments(command.getAlterReassignments());
            case ELECT_LEADERS -> electLeaders(command.getElectLeaders());
            case REPORT_FAILED_REPLICAS -> reportFailedReplicas(command.getReportFailedReplicas());
            case COMMIT_OFFSETS -> commitOffsets(command.getCommitOffsets());
            case STORE_GROUP -> group(command.getStoreGroup().getGroup());
            case DELETE_GROUPS -> strings("group ids", command.getDeleteGroups().getGroupIdsList(), MAX_ITEMS_PER_REQUEST);
            case EXPIRE_GROUPS -> expireGroups(command.getExpireGroups());
            case DELETE_GROUP_OFFSETS -> deleteGroupOffsets(command.getDeleteGroupOffsets());
            case COMMAND_NOT_SET -> new Refusal(Errors.INVALID_REQUEST, "the command is empty or of an unknown type");
        };
    }

    private Refusal registerBroker(RegisterBroker cmd) {
        Refusal r = firstOf(brokerId(cmd.getBrokerId()), string("incarnation_id", cmd.getIncarnationId()),
                string("rack", cmd.getRack()), string("metrics_url", cmd.getMetricsUrl()),
                count("endpoints", cmd.getEndpointsCount(), MAX_ENDPOINTS));
        if (r != null) {
            return r;
        }
        for (Endpoint e : cmd.getEndpointsList()) {
            r = firstOf(string("endpoint name", e.getName()), string("endpoint host", e.getHost()));
            if (r != null) {
                return r;
            }
            if (e.getPort() < 0 || e.getPort() > 65_535) {
                return invalid("endpoint port " + e.getPort() + " is not within [0, 65535]");
            }
        }
        return null;
    }

    private Refusal createTopics(CreateTopics cmd) {
        Refusal r = count("topics", cmd.getTopicsCount(), MAX_ITEMS_PER_REQUEST);
        if (r != null) {
            return r;
        }
        long partitions = 0;
        for (CreatableTopic t : cmd.getTopicsList()) {
            r = firstOf(string("topic name", t.getName()), configs(t.getConfigsList()),
                    count("assignments", t.getAssignmentsCount(), MAX_PARTITIONS_PER_REQUEST));
            if (r != null) {
                return r;
            }
            if (t.getReplicationFactor() > MAX_REPLICATION_FACTOR) {
                return new Refusal(Errors.INVALID_REPLICATION_FACTOR, "the replication factor of topic '" + t.getName()
                        + "' is " + t.getReplicationFactor() + ", above " + MAX_REPLICATION_FACTOR);
            }
            for (ReplicaAssignment a : t.getAssignmentsList()) {
                if (a.getReplicasCount() > MAX_REPLICATION_FACTOR) {
                    return new Refusal(Errors.INVALID_REPLICA_ASSIGNMENT, "partition " + a.getPartition() + " of topic '"
                            + t.getName() + "' lists " + a.getReplicasCount() + " replicas, above " + MAX_REPLICATION_FACTOR);
                }
            }
            partitions += t.getAssignmentsCount() > 0 ? t.getAssignmentsCount() : Math.max(0, t.getNumPartitions());
        }
        return partitions > MAX_PARTITIONS_PER_REQUEST ? tooManyPartitions(partitions) : null;
    }

    private Refusal createPartitions(CreatePartitions cmd) {
        Refusal r = count("topics", cmd.getTopicsCount(), MAX_ITEMS_PER_REQUEST);
        if (r != null) {
            return r;
        }
        for (CreatePartitionsItem item : cmd.getTopicsList()) {
            r = string("topic name", item.getName());
            if (r != null) {
                return r;
            }
            // A topic can never hold more partitions than the cluster; how many are new needs the image.
            if (item.getTotalCount() > maxPartitions) {
                return new Refusal(Errors.POLICY_VIOLATION, TOO_MANY_PARTITIONS + ": topic '" + item.getName()
                        + "' would have " + item.getTotalCount() + " partitions, and the cluster allows at most "
                        + maxPartitions + " in all (max.partitions)");
            }
        }
        return null;
    }

    private Refusal alterConfigs(AlterConfigs cmd) {
        return firstOf(string("topic name", cmd.getTopic()), configs(cmd.getSetList()),
                strings("deleted config keys", cmd.getDeleteList(), MAX_ITEMS_PER_REQUEST));
    }

    private Refusal alterBrokerConfigs(AlterBrokerConfigs cmd) {
        if (cmd.getBrokerId() < -1) {
            return invalid("broker id " + cmd.getBrokerId() + " is negative (-1 names the cluster-wide default)");
        }
        return firstOf(configs(cmd.getSetList()), strings("deleted config keys", cmd.getDeleteList(), MAX_ITEMS_PER_REQUEST));
    }

    private Refusal alterPartition(AlterPartition cmd) {
        return firstOf(brokerId(cmd.getBrokerId()), string("topic id", cmd.getTopicId()), partition(cmd.getPartition()),
                replicas(cmd.getNewIsrList()));
    }

    private Refusal alterReassignments(AlterReassignments cmd) {
        Refusal r = count("reassignments", cmd.getReassignmentsCount(), MAX_ITEMS_PER_REQUEST);
        for (int i = 0; r == null && i < cmd.getReassignmentsCount(); i++) {
            TargetReassignment t = cmd.getReassignments(i);
            r = firstOf(string("topic name", t.getTopic()), replicas(t.getReplicasList()));
        }
        return r;
    }

    private Refusal electLeaders(ElectLeaders cmd) {
        if (cmd.getElectionType() != 0 && cmd.getElectionType() != 1) {
            return invalid("election_type must be 0 (preferred) or 1 (unclean), got " + cmd.getElectionType());
        }
        // The controller's own leader balancing names every partition it moves: up to the whole cluster.
        return partitionRefs(cmd.getPartitionsList(), maxPartitions);
    }

    private Refusal reportFailedReplicas(ReportFailedReplicas cmd) {
        // A broker holds at most one replica of each partition.
        Refusal r = firstOf(brokerId(cmd.getBrokerId()), count("replicas", cmd.getReplicasCount(), maxPartitions));
        for (int i = 0; r == null && i < cmd.getReplicasCount(); i++) {
            FailedReplica f = cmd.getReplicas(i);
            r = firstOf(string("topic id", f.getTopicId()), partition(f.getPartition()), string("reason", f.getReason()));
        }
        return r;
    }

    private Refusal commitOffsets(CommitOffsets cmd) {
        for (GroupOffsetCommit c : cmd.getCommitsList()) {
            Refusal r = firstOf(string("group id", c.getGroupId()), string("member id", c.getMemberId()));
            if (r != null) {
                return r;
            }
            for (CommittedOffset o : c.getOffsetsList()) {
                r = firstOf(string("topic name", o.getTopic()), string("offset metadata", o.getMetadata()));
                if (r != null) {
                    return r;
                }
            }
        }
        return null;
    }

    private Refusal group(GroupMetadataRecord g) {
        Refusal r = firstOf(string("group id", g.getGroupId()), string("protocol type", g.getProtocolType()),
                string("protocol", g.getProtocol()), string("leader", g.getLeader()));
        for (int i = 0; r == null && i < g.getMembersCount(); i++) {
            GroupMemberRecord m = g.getMembers(i);
            r = firstOf(string("member id", m.getMemberId()), string("group instance id", m.getGroupInstanceId()),
                    string("client id", m.getClientId()), string("client host", m.getClientHost()));
        }
        return r;
    }

    private Refusal expireGroups(ExpireGroups cmd) {
        if (cmd.getRetentionMs() < 0) {
            return invalid("retention_ms is negative: " + cmd.getRetentionMs());
        }
        return strings("group ids", cmd.getGroupIdsList(), Integer.MAX_VALUE);
    }

    private Refusal deleteGroupOffsets(DeleteGroupOffsets cmd) {
        return firstOf(string("group id", cmd.getGroupId()), partitionRefs(cmd.getPartitionsList(), MAX_ITEMS_PER_REQUEST));
    }

    private Refusal partitionRefs(List<TopicPartitionRef> refs, int max) {
        Refusal r = count("partitions", refs.size(), max);
        for (int i = 0; r == null && i < refs.size(); i++) {
            r = string("topic name", refs.get(i).getTopic());
        }
        return r;
    }

    private static Refusal configs(List<ConfigEntry> entries) {
        Refusal r = count("config entries", entries.size(), MAX_ITEMS_PER_REQUEST);
        for (int i = 0; r == null && i < entries.size(); i++) {
            r = firstOf(string("config key", entries.get(i).getKey()), string("value of config " + abbreviated(entries.get(i).getKey()),
                    entries.get(i).getValue()));
        }
        return r;
    }

    private static Refusal replicas(List<Integer> ids) {
        if (ids.size() > MAX_REPLICATION_FACTOR) {
            return new Refusal(Errors.INVALID_REPLICA_ASSIGNMENT, ids.size() + " replicas listed, above " + MAX_REPLICATION_FACTOR);
        }
        for (int id : ids) {
            if (id < 0) {
                return new Refusal(Errors.INVALID_REPLICA_ASSIGNMENT, "replica id " + id + " is negative");
            }
        }
        return null;
    }

    private static Refusal strings(String what, List<String> values, int max) {
        Refusal r = count(what, values.size(), max);
        for (int i = 0; r == null && i < values.size(); i++) {
            r = string(what, values.get(i));
        }
        return r;
    }

    private static Refusal string(String what, String value) {
        return value.length() > MAX_STRING_LENGTH ? invalid("a " + what + " of " + value.length()
                + " characters is longer than " + MAX_STRING_LENGTH) : null;
    }

    private static Refusal count(String what, int count, int max) {
        return count > max ? new Refusal(Errors.POLICY_VIOLATION, "Excessively large batch operation: " + count + " "
                + what + " in one request, at most " + max) : null;
    }

    private static Refusal brokerId(int id) {
        return id < 0 ? invalid("broker id " + id + " is negative") : null;
    }

    private static Refusal partition(int partition) {
        return partition < 0 ? invalid("partition " + partition + " is negative") : null;
    }

    static Refusal tooManyPartitions(long partitions) {
        return new Refusal(Errors.POLICY_VIOLATION, TOO_MANY_PARTITIONS + ": " + partitions
                + " new partitions, at most " + MAX_PARTITIONS_PER_REQUEST);
    }

    private static Refusal invalid(String message) {
        return new Refusal(Errors.INVALID_REQUEST, message);
    }

    private static String abbreviated(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }

    private static Refusal firstOf(Refusal... checks) {
        for (Refusal r : checks) {
            if (r != null) {
                return r;
            }
        }
        return null;
    }
}
