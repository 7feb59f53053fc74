package io.tideline.node.quorum;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.CommandChecks;
import io.tideline.node.controller.ControllerResult;
import io.tideline.node.controller.MetadataController;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerQuery;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.IsrChangesQuery;
import io.tideline.proto.metadata.QuorumStatus;
import io.tideline.proto.metadata.MetadataRecord;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metadata quorum's Ratis state machine: every committed {@link ControllerCommand} is validated by
 * the {@link MetadataController} against the current image and its records are replayed into the next
 * image, whose offset is the entry's Raft index. Ratis' own entries (configuration, the leader's
 * startup entry) advance the offset too, so {@code image().offset()} is always the last applied index
 * and two voters at the same offset hold byte-identical images.
 *
 * <p>Reads ({@link #query}) answer broker heartbeats (leader soft state, delegated to
 * {@link ControllerDuties}), image fetches and ISR-change history. Snapshots are the serialized image
 * ({@link SnapshotFile}); a snapshot that fails its checksum stops the node at start.
 *
 * <p>Thread-safety: Ratis applies entries, takes snapshots and reinitializes on its single apply
 * thread; the image is an immutable value behind a volatile field, so queries on other threads read
 * a consistent image without locks.
 */
public final class MetadataStateMachine extends BaseStateMachine {
    private static final Logger log = LoggerFactory.getLogger(MetadataStateMachine.class);

    private final MetadataController controller;
    private final MetadataFaultHandler faults;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final List<MetadataListener> listeners = new CopyOnWriteArrayList<>();
    private volatile MetadataImage image = MetadataImage.EMPTY;
    private volatile ControllerDuties duties;
    private volatile File stateMachineDir;

    public MetadataStateMachine(MetadataController controller, MetadataFaultHandler faults) {
        this.controller = controller;
        this.faults = faults;
    }

    /** The image as of the last applied entry. */
    public MetadataImage image() {
        return image;
    }

    /** The image-free checks of every command, as this state machine applies them. */
    public CommandChecks controllerChecks() {
        return controller.checks();
    }

    /** Registers a listener for every later image change (see {@link MetadataListener} for the threading rules). */
    public void addListener(MetadataListener listener) {
        listeners.add(listener);
    }

    public void removeListener(MetadataListener listener) {
        listeners.remove(listener);
    }

    /** The controller duties that answer heartbeats and hear about leadership; set before the server starts. */
    void attachDuties(ControllerDuties controllerDuties) {
        this.duties = controllerDuties;
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        // NEW -> STARTING -> RUNNING: Ratis checks the life cycle when it installs a snapshot later.
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            stateMachineDir = raftStorage.getStorageDir().getStateMachineDir();
            loadLatestSnapshot();
        });
    }

    /**
     * Before Ratis installs a snapshot from the leader. Nothing to stop (entries are applied on Ratis'
     * own thread, which waits), but Ratis asserts PAUSED before it calls {@link #reinitialize()}.
     */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    /** After a snapshot was installed from the leader: the image becomes that snapshot. */
    @Override
    public void reinitialize() throws IOException {
        loadLatestSnapshot();
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    /**
     * Replaces the image by the latest snapshot on disk, if there is one. Ratis' own lookup
     * ({@link SimpleStateMachineStorage#loadLatestSnapshot()}) swallows read errors and would start
     * from an empty image over a purged log; scanning ourselves makes a bad snapshot an error.
     */
    private void loadLatestSnapshot() throws IOException {
        Optional<File> latest = SnapshotFile.latest(stateMachineDir);
        if (latest.isEmpty()) {
            return;
        }
        MetadataImage loaded = SnapshotFile.readVerified(latest.get());
        storage.loadLatestSnapshot();
        MetadataImage previous = image;
        image = loaded;
        setLastAppliedTermIndex(TermIndex.valueOf(loaded.term(), loaded.offset()));
        log.info("{}: loaded metadata snapshot {} (offset {}, {} brokers, {} topics)", getId(), latest.get().getName(),
                loaded.offset(), loaded.brokers().size(), loaded.topics().size());
        notifyListeners(previous, loaded, List.of());
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ControllerResponse response = apply(entry.getStateMachineLogEntry().getLogData(), entry.getIndex(), entry.getTerm());
        return CompletableFuture.completedFuture(message(response.toByteArray()));
    }

    /**
     * Total (docs/behaviours.md B104): every entry either applies or is refused, alike on every voter, with the
     * reason logged; nothing it holds can throw out of here or make the work unbounded.
     */
    private ControllerResponse apply(ByteString data, long index, long term) {
        MetadataImage previous = image;
        ControllerCommand command;
        try {
            command = ControllerCommand.parseFrom(data.toByteArray());
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            return refuse(previous, index, term, Errors.INVALID_REQUEST, "the command does not parse: " + e.getMessage());
        }
        CommandChecks.Refusal refusal = controller.checks().check(command);
        if (refusal != null) {
            return refuse(previous, index, term, refusal.error(), refusal.message());
        }
        ControllerResult result;
        MetadataImage next;
        try {
            result = controller.apply(previous, command, index, term);
            next = ImageReplayer.replay(previous, result.records(), index, term);
        } catch (RuntimeException | StackOverflowError e) {
            // A bug, but a deterministic one: every voter refuses the same entry and stays in step.
            faults.handleFault("metadata command " + command.getCommandCase() + " at index " + index + " failed", e);
            result = ControllerResult.error(Errors.UNKNOWN_SERVER_ERROR, "the controller failed on this command: " + e);
            next = ImageReplayer.replay(previous, List.of(), index, term);
        }
        install(previous, next, result.records());
        return result.response().toBuilder().setOffset(index).build();
    }

    /** An entry that changes nothing but the offset; every voter refuses it alike, for the reason it logs. */
    private ControllerResponse refuse(MetadataImage previous, long index, long term, Errors error, String reason) {
        log.warn("{}: metadata entry {} refused ({}): {}", getId(), index, error, abbreviated(reason));
        install(previous, ImageReplayer.replay(previous, List.of(), index, term), List.of());
        return ControllerResponse.newBuilder().setErrorCode(error.code()).setErrorMessage(reason).setOffset(index).build();
    }

    private static String abbreviated(String s) {
        return s.length() <= 1000 ? s : s.substring(0, 1000) + "... (" + s.length() + " characters)";
    }

    /** Ratis entries that are not ours (configuration, the leader's startup entry) still advance the offset. */
    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        super.notifyTermIndexUpdated(term, index);
        MetadataImage previous = image;
        if (index < previous.offset() || (index == previous.offset() && term == previous.term())) {
            return;
        }
        install(previous, ImageReplayer.replay(previous, List.of(), index, term), List.of());
    }

    private void install(MetadataImage previous, MetadataImage next, List<MetadataRecord> records) {
        image = next;
        updateLastAppliedTermIndex(next.term(), next.offset());
        notifyListeners(previous, next, records);
    }

    private void notifyListeners(MetadataImage previous, MetadataImage next, List<MetadataRecord> records) {
        for (MetadataListener listener : listeners) {
            try {
                listener.onMetadata(previous, next, records);
            } catch (RuntimeException e) {
                faults.handleFault("metadata listener " + listener + " failed at offset " + next.offset(), e);
            }
        }
    }

    /**
     * Writes the current image as {@code snapshot.<term>_<index>} (+ .md5). Called by Ratis on the
     * apply thread (automatically every {@code snapshotThreshold} entries, or on request), so the image
     * and the last applied index agree.
     */
    @Override
    public synchronized long takeSnapshot() throws IOException {
        MetadataImage snap = image;
        if (snap.term() == 0) {
            return RaftLog.INVALID_LOG_INDEX; // nothing applied yet
        }
        File file = storage.getSnapshotFile(snap.term(), snap.offset());
        if (!file.exists()) {
            SnapshotFile.write(file, snap);
            log.debug("{}: wrote metadata snapshot {}", getId(), file.getName());
        }
        // SimpleStateMachineStorage caches the latest snapshot; refresh it so Ratis sees (and ships) the new one.
        storage.loadLatestSnapshot();
        return snap.offset();
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        ControllerQueryResponse response;
        try {
            response = answer(ControllerQuery.parseFrom(request.getContent().toByteArray()));
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            response = ControllerQueryResponse.newBuilder().setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("the query does not parse: " + e.getMessage()).build();
        } catch (RuntimeException | StackOverflowError e) {
            faults.handleFault("metadata query failed", e);
            response = ControllerQueryResponse.newBuilder().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                    .setErrorMessage(String.valueOf(e)).build();
        }
        return CompletableFuture.completedFuture(message(response.toByteArray()));
    }

    private ControllerQueryResponse answer(ControllerQuery query) {
        MetadataImage img = image;
        boolean leader = isLeader();
        ControllerQueryResponse.Builder b = ControllerQueryResponse.newBuilder().setIsLeader(leader);
        switch (query.getQueryCase()) {
            case HEARTBEAT -> {
                ControllerDuties d = duties;
                if (d == null || !leader) {
                    return b.setErrorCode(Errors.NOT_CONTROLLER.code()).setErrorMessage(getId() + " is not the active controller").build();
                }
                return b.setHeartbeat(d.heartbeat(query.getHeartbeat())).build();
            }
            case FETCH_IMAGE -> {
                if (query.getFetchImage().getKnownOffset() != img.offset()) {
                    b.setImage(ImageSerde.toSnapshot(img));
                }
                return b.build();
            }
            case DESCRIBE_QUORUM -> {
                ControllerDuties d = duties;
                RaftServer.Division division = leader ? division() : null;
                if (d == null || division == null) {
                    return b.setErrorCode(Errors.NOT_CONTROLLER.code()).setErrorMessage(getId() + " is not the active controller").build();
                }
                long now = d.nowMs();
                return b.setQuorumStatus(QuorumStatus.newBuilder()
                        .setLeaderId(QuorumIds.nodeId(getId()).orElse(-1))
                        .setLeaderTerm(division.getInfo().getCurrentTerm())
                        .setCommittedOffset(division.getRaftLog().getLastCommittedIndex())
                        .setAppliedOffset(img.offset())
                        .addAllBrokers(img.brokers().values())
                        .addAllLiveness(d.liveness())
                        .setNowMs(now)
                        .addAllVoters(VoterReplicationView.of(division, now))).build();
            }
            case VALIDATE -> {
                return b.setValidated(dryRun(img, query.getValidate())).build();
            }
            case ISR_CHANGES -> {
                IsrChangesQuery q = query.getIsrChanges();
                Optional<TopicImage> topic = img.topic(q.getTopic());
                if (topic.isEmpty() || topic.get().partition(q.getPartition()) == null) {
                    return b.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage("no partition " + q.getTopic() + "-" + q.getPartition()).build();
                }
                return b.addAllIsrChanges(img.recentChanges(topic.get().id(), q.getPartition())).build();
            }
            default -> {
                return b.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("empty query").build();
            }
        }
    }

    /**
     * What a CreateTopics with validate_only would answer at the next index, decided on this image and thrown
     * away: a dry run never enters the log (docs/behaviours.md B105).
     */
    private ControllerResponse dryRun(MetadataImage img, ControllerCommand command) {
        if (command.getCommandCase() != ControllerCommand.CommandCase.CREATE_TOPICS) {
            return ControllerResponse.newBuilder().setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("only CreateTopics has a dry run, not " + command.getCommandCase()).build();
        }
        ControllerCommand validateOnly = command.toBuilder()
                .setCreateTopics(command.getCreateTopics().toBuilder().setValidateOnly(true)).build();
        ControllerResponse.Builder r = controller.apply(img, validateOnly, img.offset() + 1, img.term()).response()
                .toBuilder().clearOffset();
        r.getResultsBuilderList().forEach(item -> item.clearTopicId());
        return r.build();
    }

    private boolean isLeader() {
        RaftServer.Division d = division();
        return d != null && d.getInfo().isLeader();
    }

    private RaftServer.Division division() {
        RaftServer server = getServer().getNow(null);
        if (server == null) {
            return null;
        }
        try {
            return server.getDivision(getGroupId());
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
        ControllerDuties d = duties;
        if (d != null) {
            d.onLeaderChanged(groupMemberId.getPeerId().equals(newLeaderId));
        }
    }

    /** This node leads and has applied every entry of earlier terms: its image is complete. */
    @Override
    public void notifyLeaderReady() {
        ControllerDuties d = duties;
        if (d != null) {
            d.onLeaderReady();
        }
    }

    private static Message message(byte[] bytes) {
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(bytes));
    }
}
