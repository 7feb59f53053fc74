package io.tideline.node.group;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.apache.kafka.common.utils.Utils;

/**
 * Which broker coordinates a group, decided from the image alone so that every broker agrees once it has the
 * same image: the registered, unfenced brokers sorted by id, and among them the one at index
 * {@code toPositive(murmur2(UTF-8 bytes of the group id))} modulo their count. murmur2 and toPositive are
 * kafka-clients' {@code Utils} functions, the hash of Kafka's default partitioner; toPositive (the sign bit
 * cleared) rather than abs, which stays negative for Integer.MIN_VALUE. When brokers join, leave or are
 * fenced, groups move (docs/kafka-protocol.md, Consumer groups).
 */
public final class GroupOwnership {
    private GroupOwnership() {
    }

    /** Empty when no broker is unfenced. */
    public static OptionalInt coordinator(MetadataImage image, String groupId) {
        List<Integer> live = new ArrayList<>();
        for (BrokerRegistrationRecord b : image.brokers().values()) {
            if (!b.getFenced() && !b.getInControlledShutdown()) {
                live.add(b.getBrokerId());
            }
        }
        if (live.isEmpty()) {
            return OptionalInt.empty();
        }
        int hash = Utils.toPositive(Utils.murmur2(groupId.getBytes(StandardCharsets.UTF_8)));
        return OptionalInt.of(live.get(hash % live.size()));
    }
}
