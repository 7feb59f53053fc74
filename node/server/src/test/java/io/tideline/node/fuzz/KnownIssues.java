package io.tideline.node.fuzz;

import com.google.protobuf.Message;
import io.tideline.proto.admin.CreatePartitionsRequest;
import io.tideline.proto.admin.CreatePartitionsTopic;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.NewTopic;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Requests the fuzzer knows to break the node through code it does not own, and so does not send in its budget
 * run (docs/testing.md, "The listener fuzzer"). Each entry says what is wrong and who fixes it; the oracle is
 * unchanged, so {@code -Dfuzz.knownIssues=send} sends them and the run fails on them until the fix lands. Remove an
 * entry when its fix is merged.
 */
enum KnownIssues {
    /**
     * Node/controller command validation: a CreateTopics or CreatePartitions asking for more partitions than
     * Kafka's controller creates in one operation (10,000 records) is committed, and applying it runs every voter
     * out of heap ("Requested array size exceeds VM limit"), so the node, and the test JVM with it, dies.
     */
    PARTITIONS_PER_REQUEST_UNBOUNDED(
            "a CreateTopics/CreatePartitions asking for more than " + KnownIssues.MAX_PARTITIONS_PER_REQUEST
                    + " partitions is committed unbounded, and applying it exhausts the heap (controller command"
                    + " validation, node/controller)",
            KnownIssues::asksTooManyPartitions);

    /** Kafka's controller bound on the records of one user operation (QuorumController's MAX_RECORDS_PER_USER_OP). */
    static final int MAX_PARTITIONS_PER_REQUEST = 10_000;

    private final String what;
    private final Predicate<Object> matches;

    KnownIssues(String what, Predicate<Object> matches) {
        this.what = what;
        this.matches = matches;
    }

    String what() {
        return what;
    }

    /** The first entry {@code request} (a parsed Kafka {@link AbstractRequest} or gRPC {@link Message}) hits. */
    static Optional<KnownIssues> match(Object request) {
        for (KnownIssues k : values()) {
            if (k.matches.test(request)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }

    static Optional<KnownIssues> matchAny(List<?> requests) {
        return requests.stream().map(KnownIssues::match).flatMap(Optional::stream).findFirst();
    }

    private static boolean asksTooManyPartitions(Object request) {
        long asked = 0;
        if (request instanceof org.apache.kafka.common.requests.CreateTopicsRequest k) {
            for (CreateTopicsRequestData.CreatableTopic t : k.data().topics()) {
                asked += Math.max(t.numPartitions(), t.assignments().size());
            }
        } else if (request instanceof org.apache.kafka.common.requests.CreatePartitionsRequest k) {
            for (CreatePartitionsRequestData.CreatePartitionsTopic t : k.data().topics()) {
                asked += t.count();
            }
        } else if (request instanceof CreateTopicsRequest g) {
            for (NewTopic t : g.getTopicsList()) {
                asked += Math.max(t.getNumPartitions(), t.getAssignmentsCount());
            }
        } else if (request instanceof CreatePartitionsRequest g) {
            for (CreatePartitionsTopic t : g.getTopicsList()) {
                asked += t.getTotalCount();
            }
        }
        return asked > MAX_PARTITIONS_PER_REQUEST;
    }
}
