package io.tideline.node.kafka;

import java.util.List;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKeyCollection;

/**
 * The feature levels ApiVersions reports (docs/behaviours.md B251): each of Kafka's production features whose
 * protocol Tideline does not serve, at the only level it supports, 0 (the feature off). A level is a promise to
 * clients: kafka-clients' producer turns transactions v2 on when {@code transaction.version} is finalized at 2 or
 * more, and a feature's level names which of its protocols the cluster speaks. None is finalized above 0 (Kafka drops
 * a feature finalized at 0 from the finalized list), so there is no finalized epoch either; the levels are fixed by
 * this software, which is why UpdateFeatures is not served.
 *
 * <p>{@code metadata.version} is not reported: its levels name Kafka releases' metadata record formats and broker
 * protocols, and Tideline's metadata is not Kafka's metadata log, so any level would be a claim that is not true.
 */
final class KafkaFeatures {
    /** Each supported at level 0 only, for the reason beside it. */
    static final List<String> SUPPORTED = List.of(
            "eligible.leader.replicas.version", // no eligible leader replicas (KIP-966)
            "group.version",                    // classic consumer groups only, not the KIP-848 protocol
            "kraft.version",                    // the quorum's voters are static (controller.quorum.voters)
            "share.version",                    // no share groups (KIP-932)
            "streams.version",                  // no streams groups (KIP-1071)
            "transaction.version");             // no transactions v2 (KIP-890); transactional ids are refused

    /** ApiVersions v4 is the first whose clients read a minimum level of 0 (KAFKA-17011). */
    static final short FIRST_VERSION_WITH_LEVEL_ZERO = 4;

    private KafkaFeatures() {
    }

    /**
     * The supported features for an ApiVersions answer at {@code version}: none below v4, where Kafka too leaves out
     * every feature whose minimum level is 0 because older clients fail to parse it (KAFKA-17492).
     */
    static SupportedFeatureKeyCollection supported(short version) {
        SupportedFeatureKeyCollection out = new SupportedFeatureKeyCollection();
        if (version >= FIRST_VERSION_WITH_LEVEL_ZERO) {
            SUPPORTED.forEach(name -> out.add(new SupportedFeatureKey().setName(name).setMinVersion((short) 0)
                    .setMaxVersion((short) 0)));
        }
        return out;
    }
}
