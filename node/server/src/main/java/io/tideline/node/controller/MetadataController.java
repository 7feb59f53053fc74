package io.tideline.node.controller;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;

/**
 * The controller's decisions as a pure function: (image, command, Raft index) -> records + response.
 * Every voter runs it on every committed command, in log order, and replays the records it returns;
 * it reads no clock (commands carry their timestamp), no random source and no local state, so all
 * voters reach the same image. A refused command returns an error and no records. It is total: the
 * image-free {@link CommandChecks} run first, so every command's work is bounded by its own size and
 * the cluster's bounds (docs/behaviours.md B100-B104).
 *
 * <p>Thread-safety: stateless apart from its settings; call it from one apply thread.
 */
public final class MetadataController {
    private final CommandChecks checks;
    private final BrokerHandlers brokers;
    private final TopicHandlers topics;
    private final PartitionHandlers partitions;
    private final BrokerConfigHandlers brokerConfigs = new BrokerConfigHandlers();
    private final ProducerIdHandlers producerIds = new ProducerIdHandlers();
    private final GroupHandlers groups = new GroupHandlers();

    public MetadataController(ControllerSettings settings) {
        this.checks = new CommandChecks(settings);
        this.topics = new TopicHandlers(settings);
        this.brokers = new BrokerHandlers(settings);
        this.partitions = new PartitionHandlers(settings);
    }

    /**
     * @param offset the Raft index the command is committed at (the broker epoch of a registration, the
     *               seed of topic ids and placement)
     */
    public ControllerResult apply(MetadataImage image, ControllerCommand command, long offset, long term) {
        // The same checks ran before the command was proposed, but an entry in the log may come from
        // elsewhere: they bound everything below (docs/behaviours.md B103).
        CommandChecks.Refusal refusal = checks.check(command);
        ControllerResult result = refusal != null ? refusal.result() : decide(image, command, offset);
        return new ControllerResult(result.response().toBuilder().setOffset(offset).build(), result.records());
    }

    /** The image-free checks this controller applies first; the controller client runs the same before proposing. */
    public CommandChecks checks() {
        return checks;
    }

    private ControllerResult decide(MetadataImage image, ControllerCommand command, long offset) {
        long ts = command.getTimestampMs();
        return switch (command.getCommandCase()) {
            case REGISTER_BROKER -> brokers.register(image, command.getRegisterBroker(), offset, ts);
            case UNFENCE_BROKER -> brokers.unfence(image, command.getUnfenceBroker(), ts);
            case FENCE_BROKER -> brokers.fence(image, command.getFenceBroker(), ts);
            case CONTROLLED_SHUTDOWN -> brokers.controlledShutdown(image, command.getControlledShutdown(), ts);
            case CREATE_TOPICS -> topics.create(image, command.getCreateTopics(), offset);
            case DELETE_TOPICS -> topics.delete(image, command.getDeleteTopics());
            case CREATE_PARTITIONS -> topics.createPartitions(image, command.getCreatePartitions(), offset);
            case ALTER_CONFIGS -> topics.alterConfigs(image, command.getAlterConfigs());
            case ALTER_BROKER_CONFIGS -> brokerConfigs.alter(image, command.getAlterBrokerConfigs());
            case ALLOCATE_PRODUCER_IDS -> producerIds.allocate(image, command.getAllocateProducerIds());
            case ALTER_PARTITION -> partitions.alterPartition(image, command.getAlterPartition(), ts);
            case ALTER_REASSIGNMENTS -> partitions.alterReassignments(image, command.getAlterReassignments(), ts);
            case ELECT_LEADERS -> partitions.electLeaders(image, command.getElectLeaders(), ts);
            case REPORT_FAILED_REPLICAS -> partitions.reportFailedReplicas(image, command.getReportFailedReplicas(), ts);
            case COMMIT_OFFSETS -> groups.commitOffsets(image, command.getCommitOffsets(), ts);
            case STORE_GROUP -> groups.storeGroup(image, command.getStoreGroup(), ts);
            case DELETE_GROUPS -> groups.deleteGroups(image, command.getDeleteGroups());
            case EXPIRE_GROUPS -> groups.expireGroups(image, command.getExpireGroups(), ts);
            case DELETE_GROUP_OFFSETS -> groups.deleteGroupOffsets(image, command.getDeleteGroupOffsets());
            case COMMAND_NOT_SET -> ControllerResult.error(Errors.INVALID_REQUEST, "the command is empty");
        };
    }
}
