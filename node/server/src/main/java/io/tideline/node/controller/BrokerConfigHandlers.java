package io.tideline.node.controller;

import io.tideline.common.config.ConfigException;
import io.tideline.common.errors.Errors;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AlterBrokerConfigs;
import io.tideline.proto.metadata.BrokerConfigRecord;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.MetadataRecord;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Dynamic broker configs (Kafka's incrementalAlterConfigs of a BROKER resource): one broker's, or the
 * cluster-wide default under broker id -1. The whole set after the change is validated
 * ({@link DynamicBrokerConfigs#validate}) and committed as one {@link BrokerConfigRecord}; a refused
 * change commits nothing.
 */
final class BrokerConfigHandlers {

    ControllerResult alter(MetadataImage image, AlterBrokerConfigs cmd) {
        int brokerId = cmd.getBrokerId();
        if (brokerId < DynamicBrokerConfigs.CLUSTER_DEFAULT) {
            return ControllerResult.error(Errors.INVALID_REQUEST, "invalid broker id " + brokerId
                    + ": a broker id is not negative (-1 is the cluster-wide default)");
        }
        // Kafka would accept a config for a broker that has not joined yet; we refuse it, so that a typo in
        // the id is an error and not a setting that silently waits for a broker that never comes.
        if (brokerId != DynamicBrokerConfigs.CLUSTER_DEFAULT && image.broker(brokerId).isEmpty()) {
            return ControllerResult.error(Errors.BROKER_NOT_AVAILABLE, "broker " + brokerId
                    + " is not registered in the cluster (registered: " + image.brokers().keySet() + ")");
        }
        // A delete of a key that is not dynamic is refused too, as in Kafka: it names a config that cannot be
        // changed this way, which is more likely a mistake than a no-op.
        TreeSet<String> notDynamic = new TreeSet<>(cmd.getDeleteList());
        cmd.getSetList().forEach(e -> notDynamic.add(e.getKey()));
        notDynamic.removeAll(DynamicBrokerConfigs.names());
        if (!notDynamic.isEmpty()) {
            return ControllerResult.error(Errors.INVALID_CONFIG, "Cannot update these configs dynamically: " + notDynamic);
        }
        if (brokerId != DynamicBrokerConfigs.CLUSTER_DEFAULT) {
            TreeSet<String> defaultOnly = new TreeSet<>();
            cmd.getSetList().forEach(e -> defaultOnly.add(e.getKey()));
            defaultOnly.retainAll(DynamicBrokerConfigs.CLUSTER_DEFAULT_ONLY);
            if (!defaultOnly.isEmpty()) {
                return ControllerResult.error(Errors.INVALID_CONFIG, "Cannot set " + defaultOnly + " for broker "
                        + brokerId + ": the controller quorum elects leaders and reads only the cluster-wide default "
                        + "(--entity-default) and its static value (docs/behaviours.md B58)");
            }
        }
        TreeMap<String, String> configs = new TreeMap<>(image.brokerConfigs(brokerId));
        for (ConfigEntry e : cmd.getSetList()) {
            configs.put(e.getKey(), e.getValue().trim());
        }
        for (String key : cmd.getDeleteList()) {
            configs.remove(key);
        }
        try {
            DynamicBrokerConfigs.validate(configs);
        } catch (ConfigException e) {
            return ControllerResult.error(Errors.INVALID_CONFIG, e.getMessage());
        }
        if (configs.equals(image.brokerConfigs(brokerId))) {
            return ControllerResult.of(ControllerResponse.getDefaultInstance(), List.of());
        }
        BrokerConfigRecord.Builder record = BrokerConfigRecord.newBuilder().setBrokerId(brokerId);
        configs.forEach((k, v) -> record.addEntries(ConfigEntry.newBuilder().setKey(k).setValue(v)));
        return ControllerResult.of(ControllerResponse.getDefaultInstance(),
                List.of(MetadataRecord.newBuilder().setBrokerConfig(record).build()));
    }
}
