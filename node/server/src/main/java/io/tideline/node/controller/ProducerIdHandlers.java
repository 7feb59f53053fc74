package io.tideline.node.controller;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AllocateProducerIds;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.ProducerIdBlock;
import io.tideline.proto.metadata.ProducerIdsRecord;
import java.util.List;
import java.util.Optional;

/**
 * Producer ids for InitProducerId, handed out in blocks of {@link #BLOCK_SIZE} (Kafka's AllocateProducerIds,
 * KIP-730). The block's end is committed as a {@link ProducerIdsRecord} before the broker gets its answer, so
 * a controller elected after a failover starts past every block already answered: no id is handed out
 * twice, and none is negative (the first block starts at 0, blocks stop before Long.MAX_VALUE).
 */
final class ProducerIdHandlers {
    /** Kafka's block size (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
    static final int BLOCK_SIZE = 1000;

    ControllerResult allocate(MetadataImage image, AllocateProducerIds cmd) {
        Optional<BrokerRegistrationRecord> broker = image.broker(cmd.getBrokerId());
        if (broker.isEmpty()) {
            return ControllerResult.error(Errors.BROKER_NOT_AVAILABLE, "broker " + cmd.getBrokerId() + " is not registered");
        }
        // As Kafka: only the broker's current incarnation may take ids, so a block asked for before a restart
        // and answered after it is refused rather than handed to a broker that no longer waits for it.
        if (broker.get().getBrokerEpoch() != cmd.getBrokerEpoch()) {
            return ControllerResult.error(Errors.STALE_BROKER_EPOCH, "broker " + cmd.getBrokerId() + " has epoch "
                    + broker.get().getBrokerEpoch() + ", the request " + cmd.getBrokerEpoch());
        }
        long first = image.nextProducerId();
        if (first > Long.MAX_VALUE - BLOCK_SIZE) {
            return ControllerResult.error(Errors.UNKNOWN_SERVER_ERROR, "every producer id has been handed out");
        }
        MetadataRecord record = MetadataRecord.newBuilder().setProducerIds(ProducerIdsRecord.newBuilder()
                .setBrokerId(cmd.getBrokerId()).setBrokerEpoch(cmd.getBrokerEpoch())
                .setNextProducerId(first + BLOCK_SIZE)).build();
        ControllerResponse response = ControllerResponse.newBuilder().setProducerIdBlock(ProducerIdBlock.newBuilder()
                .setFirstProducerId(first).setLength(BLOCK_SIZE)).build();
        return ControllerResult.of(response, List.of(record));
    }
}
