package io.tideline.node.kafka.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineProducer;
import io.tideline.common.TopicPartition;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.service.AdminServices;
import io.tideline.node.kafka.KafkaApis;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.TopicImage;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.ServerConfig;
import io.tideline.node.server.TidelineNode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.RequestHeader;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka admin APIs on a three-node cluster, called through {@link KafkaApi#handle} with requests and
 * answers passed through kafka-clients' own writers and readers at the version under test, so what is checked
 * is what a Kafka client would read. Each answer is compared with the cluster's state.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaAdminApisTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private NodeTestCluster cluster;
    private TidelineAdmin admin;
    private int correlation;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        cluster = new NodeTestCluster(dir, 3, Map.of("num.partitions", 2, "default.replication.factor", 3,
                "log.retention.bytes", 1_000_000_000L)).startAll();
        admin = new TidelineAdmin(clientConfig());
    }

    @AfterAll
    void stop() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    // ------------------------------------------------------------------ topics

    @Test
    void createTopicsAppliesBrokerDefaultsForMinusOneAndAnswersCountsConfigsAndTheTopicId() throws Exception {
        CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(10_000);
        request.topics().add(new CreatableTopic().setName("kc-defaults").setNumPartitions(-1).setReplicationFactor((short) -1));
        CreatableTopic withConfig = new CreatableTopic().setName("kc-configs").setNumPartitions(1).setReplicationFactor((short) 2);
        withConfig.configs().add(new CreatableTopicConfig().setName("retention.ms").setValue("5000"));
        request.topics().add(withConfig);
        CreateTopicsResponseData answer = call(1, ApiKeys.CREATE_TOPICS, (short) 7, request);

        CreatableTopicResult defaults = answer.topics().find("kc-defaults");
        assertEquals(Errors.NONE.code(), defaults.errorCode(), String.valueOf(defaults.errorMessage()));
        assertEquals(2, defaults.numPartitions());
        assertEquals(3, defaults.replicationFactor());
        awaitTopic("kc-defaults");
        TopicImage created = cluster.node(1).image().topic("kc-defaults").orElseThrow();
        assertEquals(2, created.partitions().size());
        assertEquals(3, created.partition(0).getReplicasCount());
        assertEquals(Uuid.fromString(created.id()), defaults.topicId());

        CreatableTopicResult configs = answer.topics().find("kc-configs");
        assertEquals(Errors.NONE.code(), configs.errorCode());
        CreatableTopicConfigs retention = configs.configs().stream().filter(c -> c.name().equals("retention.ms"))
                .findFirst().orElseThrow();
        assertEquals("5000", retention.value());
        assertEquals(ConfigSource.TOPIC_CONFIG.id(), retention.configSource());
        CreatableTopicConfigs retentionBytes = configs.configs().stream()
                .filter(c -> c.name().equals("retention.bytes")).findFirst().orElseThrow();
        assertEquals("1000000000", retentionBytes.value(), "the broker's static log.retention.bytes");
        assertEquals(ConfigSource.STATIC_BROKER_CONFIG.id(), retentionBytes.configSource());
    }

    @Test
    void createTopicsValidateOnlyCreatesNothingAndRefusalsCarryKafkasCodes() throws Exception {
        CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(10_000).setValidateOnly(true);
        request.topics().add(new CreatableTopic().setName("kc-dry").setNumPartitions(3).setReplicationFactor((short) 1));
        CreateTopicsResponseData dry = call(1, ApiKeys.CREATE_TOPICS, (short) 5, request);
        assertEquals(Errors.NONE.code(), dry.topics().find("kc-dry").errorCode());
        assertEquals(3, dry.topics().find("kc-dry").numPartitions());
        assertTrue(cluster.node(1).image().topic("kc-dry").isEmpty());

        CreateTopicsRequestData bad = new CreateTopicsRequestData().setTimeoutMs(10_000);
        CreatableTopic badConfig = new CreatableTopic().setName("kc-bad-config").setNumPartitions(1).setReplicationFactor((short) 1);
        badConfig.configs().add(new CreatableTopicConfig().setName("retention.ms").setValue("soon"));
        bad.topics().add(badConfig);
        bad.topics().add(new CreatableTopic().setName("kc-too-many-replicas").setNumPartitions(1).setReplicationFactor((short) 4));
        bad.topics().add(new CreatableTopic().setName("kc-twice").setNumPartitions(1).setReplicationFactor((short) 1));
        bad.topics().add(new CreatableTopic().setName("kc-twice").setNumPartitions(2).setReplicationFactor((short) 1));
        CreateTopicsResponseData refused = call(2, ApiKeys.CREATE_TOPICS, (short) 7, bad);
        assertEquals(Errors.INVALID_CONFIG.code(), refused.topics().find("kc-bad-config").errorCode());
        assertNotNull(refused.topics().find("kc-bad-config").errorMessage());
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), refused.topics().find("kc-too-many-replicas").errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), refused.topics().find("kc-twice").errorCode());
        assertEquals(3, refused.topics().size(), "one answer per topic name");

        CreateTopicsRequestData again = new CreateTopicsRequestData().setTimeoutMs(10_000);
        createTopic("kc-exists", 1, 1);
        again.topics().add(new CreatableTopic().setName("kc-exists").setNumPartitions(1).setReplicationFactor((short) 1));
        assertEquals(Errors.TOPIC_ALREADY_EXISTS.code(),
                ((CreateTopicsResponseData) call(3, ApiKeys.CREATE_TOPICS, (short) 2, again)).topics().find("kc-exists").errorCode());
    }

    @Test
    void deleteTopicsByNameUpToV5AndByIdInV6() throws Exception {
        createTopic("kc-del-name", 1, 1);
        createTopic("kc-del-id", 1, 1);
        Uuid id = Uuid.fromString(cluster.node(1).image().topic("kc-del-id").orElseThrow().id());

        DeleteTopicsResponseData byName = call(1, ApiKeys.DELETE_TOPICS, (short) 5,
                new DeleteTopicsRequestData().setTimeoutMs(10_000).setTopicNames(List.of("kc-del-name", "kc-nothing")));
        assertEquals(Errors.NONE.code(), byName.responses().find("kc-del-name").errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), byName.responses().find("kc-nothing").errorCode());

        Uuid unknown = Uuid.randomUuid();
        DeleteTopicsResponseData byId = call(2, ApiKeys.DELETE_TOPICS, (short) 6, new DeleteTopicsRequestData()
                .setTimeoutMs(10_000).setTopics(List.of(new DeleteTopicsRequestData.DeleteTopicState().setTopicId(id),
                        new DeleteTopicsRequestData.DeleteTopicState().setTopicId(unknown))));
        Map<Uuid, DeleteTopicsResponseData.DeletableTopicResult> results = byId.responses().stream()
                .collect(Collectors.toMap(DeleteTopicsResponseData.DeletableTopicResult::topicId, r -> r));
        assertEquals(Errors.NONE.code(), results.get(id).errorCode());
        assertEquals("kc-del-id", results.get(id).name());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), results.get(unknown).errorCode());
        Awaitility.await("both topics gone").atMost(WAIT).until(() -> cluster.node(3).image().topic("kc-del-id").isEmpty()
                && cluster.node(3).image().topic("kc-del-name").isEmpty());
    }

    @Test
    void createPartitionsRaisesTheCountAndRefusesWhatTheControllerCannotDo() throws Exception {
        createTopic("kc-grow", 1, 2);
        CreatePartitionsRequestData request = new CreatePartitionsRequestData().setTimeoutMs(10_000);
        request.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("kc-grow").setCount(3));
        request.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("kc-none").setCount(3));
        CreatePartitionsResponseData answer = call(2, ApiKeys.CREATE_PARTITIONS, (short) 3, request);
        Map<String, Short> codes = answer.results().stream().collect(Collectors.toMap(r -> r.name(), r -> r.errorCode()));
        assertEquals(Errors.NONE.code(), codes.get("kc-grow"));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), codes.get("kc-none"));
        Awaitility.await("3 partitions").atMost(WAIT)
                .until(() -> cluster.node(1).image().topic("kc-grow").orElseThrow().partitions().size() == 3);

        CreatePartitionsRequestData shrink = new CreatePartitionsRequestData().setTimeoutMs(10_000);
        shrink.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("kc-grow").setCount(2));
        assertEquals(Errors.INVALID_PARTITIONS.code(),
                ((CreatePartitionsResponseData) call(1, ApiKeys.CREATE_PARTITIONS, (short) 0, shrink)).results().get(0).errorCode());

        CreatePartitionsRequestData assigned = new CreatePartitionsRequestData().setTimeoutMs(10_000);
        assigned.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("kc-grow").setCount(4)
                .setAssignments(List.of(new CreatePartitionsRequestData.CreatePartitionsAssignment().setBrokerIds(List.of(1, 2)))));
        CreatePartitionsResponseData refused = call(1, ApiKeys.CREATE_PARTITIONS, (short) 3, assigned);
        assertEquals(Errors.INVALID_REQUEST.code(), refused.results().get(0).errorCode());
        assertTrue(refused.results().get(0).errorMessage().contains("assignments"), refused.results().get(0).errorMessage());
        CreatePartitionsRequestData validateOnly = new CreatePartitionsRequestData().setTimeoutMs(10_000).setValidateOnly(true);
        validateOnly.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("kc-grow").setCount(5));
        assertEquals(Errors.INVALID_REQUEST.code(),
                ((CreatePartitionsResponseData) call(1, ApiKeys.CREATE_PARTITIONS, (short) 3, validateOnly)).results().get(0).errorCode());
        assertEquals(3, cluster.node(1).image().topic("kc-grow").orElseThrow().partitions().size());
    }

    // ------------------------------------------------------------------ configs

    @Test
    void topicConfigsAreDescribedWithSourcesAndSynonymsAndAlteredIncrementally() throws Exception {
        createTopic("kc-conf", 1, 1);
        IncrementalAlterConfigsRequestData alter = new IncrementalAlterConfigsRequestData();
        alter.resources().add(resource(ConfigResource.Type.TOPIC, "kc-conf",
                config("retention.ms", OpType.SET, "60000"),
                config("leader.replication.throttled.replicas", OpType.APPEND, "0:1"),
                config("follower.replication.throttled.replicas", OpType.SET, "0:2,0:3")));
        assertAltered(call(1, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, alter));
        awaitTopicConfig("kc-conf", "retention.ms", "60000");

        IncrementalAlterConfigsRequestData more = new IncrementalAlterConfigsRequestData();
        more.resources().add(resource(ConfigResource.Type.TOPIC, "kc-conf",
                config("leader.replication.throttled.replicas", OpType.APPEND, "0:2,0:1"),
                config("follower.replication.throttled.replicas", OpType.SUBTRACT, "0:2"),
                config("retention.ms", OpType.DELETE, null)));
        assertAltered(call(2, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 0, more));
        awaitTopicConfig("kc-conf", "follower.replication.throttled.replicas", "0:3");
        Map<String, String> now = cluster.node(1).image().topic("kc-conf").orElseThrow().configs();
        assertEquals("0:1,0:2", now.get("leader.replication.throttled.replicas"));
        assertFalse(now.containsKey("retention.ms"));

        DescribeConfigsRequestData describe = new DescribeConfigsRequestData().setIncludeSynonyms(true);
        describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("kc-conf"));
        describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("kc-no-such-topic"));
        DescribeConfigsResponseData described = call(3, ApiKeys.DESCRIBE_CONFIGS, (short) 4, describe);
        Map<String, DescribeConfigsResourceResult> entries = described.results().get(0).configs().stream()
                .collect(Collectors.toMap(DescribeConfigsResourceResult::name, c -> c));
        assertEquals("0:1,0:2", entries.get("leader.replication.throttled.replicas").value());
        assertEquals(ConfigSource.TOPIC_CONFIG.id(), entries.get("leader.replication.throttled.replicas").configSource());
        DescribeConfigsResourceResult retention = entries.get("retention.ms");
        assertEquals(String.valueOf(7 * 24 * 3_600_000L), retention.value(), "the broker default, in ms");
        assertEquals(ConfigSource.DEFAULT_CONFIG.id(), retention.configSource());
        assertEquals("log.retention.hours", retention.synonyms().get(0).name());
        assertEquals(ConfigSource.STATIC_BROKER_CONFIG.id(), entries.get("retention.bytes").configSource());
        assertEquals("log.retention.bytes", entries.get("retention.bytes").synonyms().get(0).name());
        assertFalse(entries.get("segment.bytes").readOnly());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), described.results().get(1).errorCode());

        IncrementalAlterConfigsRequestData notAList = new IncrementalAlterConfigsRequestData();
        notAList.resources().add(resource(ConfigResource.Type.TOPIC, "kc-conf", config("retention.ms", OpType.APPEND, "5")));
        notAList.resources().add(resource(ConfigResource.Type.TOPIC, "kc-no-such-topic", config("retention.ms", OpType.SET, "5")));
        IncrementalAlterConfigsResponseData refused = call(1, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, notAList);
        assertEquals(Errors.INVALID_CONFIG.code(), refused.responses().get(0).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), refused.responses().get(1).errorCode());
        IncrementalAlterConfigsRequestData dry = new IncrementalAlterConfigsRequestData().setValidateOnly(true);
        dry.resources().add(resource(ConfigResource.Type.TOPIC, "kc-conf", config("retention.ms", OpType.SET, "5")));
        assertEquals(Errors.INVALID_REQUEST.code(),
                ((IncrementalAlterConfigsResponseData) call(1, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, dry))
                        .responses().get(0).errorCode());
        assertFalse(cluster.node(1).image().topic("kc-conf").orElseThrow().configs().containsKey("retention.ms"));
    }

    @Test
    void flushSettingsAreKafkasTopicKeysCreatedDescribedAndAlteredWithTheirSources() throws Exception {
        CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(10_000);
        CreatableTopic topic = new CreatableTopic().setName("kc-flush").setNumPartitions(1).setReplicationFactor((short) 3);
        topic.configs().add(new CreatableTopicConfig().setName("flush.messages").setValue("1"));
        request.topics().add(topic);
        CreatableTopicResult created = ((CreateTopicsResponseData) call(1, ApiKeys.CREATE_TOPICS, (short) 7, request))
                .topics().find("kc-flush");
        assertEquals(Errors.NONE.code(), created.errorCode(), String.valueOf(created.errorMessage()));
        CreatableTopicConfigs flushMessages = created.configs().stream().filter(c -> c.name().equals("flush.messages"))
                .findFirst().orElseThrow();
        assertEquals("1", flushMessages.value());
        assertEquals(ConfigSource.TOPIC_CONFIG.id(), flushMessages.configSource());
        awaitTopic("kc-flush");

        IncrementalAlterConfigsRequestData alter = new IncrementalAlterConfigsRequestData();
        alter.resources().add(resource(ConfigResource.Type.TOPIC, "kc-flush", config("flush.ms", OpType.SET, "1000")));
        assertAltered(call(2, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, alter));
        awaitTopicConfig("kc-flush", "flush.ms", "1000");
        TopicPartition tp = new TopicPartition("kc-flush", 0);
        Awaitility.await("kc-flush's logs run with the settings").atMost(WAIT).until(() -> cluster.running().stream()
                .allMatch(n -> n.logManager().getLog(tp).map(l -> l.config().flushMessages() == 1L
                        && l.config().flushMs() == 1000L).orElse(false)));

        IncrementalAlterConfigsRequestData bad = new IncrementalAlterConfigsRequestData();
        bad.resources().add(resource(ConfigResource.Type.TOPIC, "kc-flush", config("flush.messages", OpType.SET, "0")));
        IncrementalAlterConfigsResponseData refused = call(1, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, bad);
        assertEquals(Errors.INVALID_CONFIG.code(), refused.responses().get(0).errorCode());

        DescribeConfigsRequestData describe = new DescribeConfigsRequestData().setIncludeSynonyms(true);
        describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("kc-flush"));
        Map<String, DescribeConfigsResourceResult> entries = ((DescribeConfigsResponseData) call(3,
                ApiKeys.DESCRIBE_CONFIGS, (short) 4, describe)).results().get(0).configs().stream()
                .collect(Collectors.toMap(DescribeConfigsResourceResult::name, c -> c));
        assertEquals("1", entries.get("flush.messages").value());
        assertEquals(ConfigSource.TOPIC_CONFIG.id(), entries.get("flush.messages").configSource());
        assertEquals("log.flush.interval.messages", entries.get("flush.messages").synonyms().get(1).name());
        assertEquals(String.valueOf(Long.MAX_VALUE), entries.get("flush.messages").synonyms().get(1).value());
        assertEquals(ConfigSource.DEFAULT_CONFIG.id(), entries.get("flush.messages").synonyms().get(1).source());
        assertEquals("1000", entries.get("flush.ms").value());
        assertEquals(ConfigSource.TOPIC_CONFIG.id(), entries.get("flush.ms").configSource());
    }

    @Test
    void brokerConfigsTheThrottleRatesIncludedAreAlteredAndDescribedByTheBrokerItself() throws Exception {
        IncrementalAlterConfigsRequestData alter = new IncrementalAlterConfigsRequestData();
        alter.resources().add(resource(ConfigResource.Type.BROKER, "2",
                config("leader.replication.throttled.rate", OpType.SET, "1048576"),
                config("follower.replication.throttled.rate", OpType.SET, "2097152")));
        alter.resources().add(resource(ConfigResource.Type.BROKER, "", config("log.retention.ms", OpType.SET, "86400000")));
        IncrementalAlterConfigsResponseData answer = call(1, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, alter);
        assertAltered(answer);
        Awaitility.await("broker 2's throttle").atMost(WAIT).until(() ->
                "1048576".equals(cluster.node(2).image().brokerConfigs(2).get("leader.replication.throttled.rate")));

        DescribeConfigsRequestData describe = new DescribeConfigsRequestData().setIncludeSynonyms(true);
        describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("2")
                .setConfigurationKeys(List.of("leader.replication.throttled.rate", "log.retention.ms")));
        DescribeConfigsResponseData described = call(2, ApiKeys.DESCRIBE_CONFIGS, (short) 4, describe);
        Map<String, DescribeConfigsResourceResult> entries = described.results().get(0).configs().stream()
                .collect(Collectors.toMap(DescribeConfigsResourceResult::name, c -> c));
        assertEquals(2, entries.size(), entries.keySet().toString());
        assertEquals("1048576", entries.get("leader.replication.throttled.rate").value());
        assertEquals(ConfigSource.DYNAMIC_BROKER_CONFIG.id(), entries.get("leader.replication.throttled.rate").configSource());
        assertEquals("86400000", entries.get("log.retention.ms").value());
        assertEquals(ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.id(), entries.get("log.retention.ms").configSource());

        // Only broker 2 knows its static file: broker 1 refuses, as Kafka's does.
        DescribeConfigsResponseData elsewhere = call(1, ApiKeys.DESCRIBE_CONFIGS, (short) 1, describe);
        assertEquals(Errors.INVALID_REQUEST.code(), elsewhere.results().get(0).errorCode());

        IncrementalAlterConfigsRequestData unknownKey = new IncrementalAlterConfigsRequestData();
        unknownKey.resources().add(resource(ConfigResource.Type.BROKER, "2", config("num.io.threads", OpType.SET, "4")));
        assertEquals(Errors.INVALID_CONFIG.code(), ((IncrementalAlterConfigsResponseData)
                call(1, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, unknownKey)).responses().get(0).errorCode());

        IncrementalAlterConfigsRequestData clear = new IncrementalAlterConfigsRequestData();
        clear.resources().add(resource(ConfigResource.Type.BROKER, "2",
                config("leader.replication.throttled.rate", OpType.DELETE, null),
                config("follower.replication.throttled.rate", OpType.DELETE, null)));
        clear.resources().add(resource(ConfigResource.Type.BROKER, "", config("log.retention.ms", OpType.DELETE, null)));
        assertAltered(call(3, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, clear));
        Awaitility.await("broker 2's throttle cleared").atMost(WAIT).until(() ->
                cluster.node(2).image().brokerConfigs(2).isEmpty());
    }

    @Test
    void brokerDescribeListsTheTopicDefaultsReadOnlyWithTheirSource() throws Exception {
        DescribeConfigsRequestData describe = new DescribeConfigsRequestData().setIncludeSynonyms(true);
        describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("2"));
        DescribeConfigsResponseData described = call(2, ApiKeys.DESCRIBE_CONFIGS, (short) 4, describe);
        Map<String, DescribeConfigsResourceResult> entries = described.results().get(0).configs().stream()
                .collect(Collectors.toMap(DescribeConfigsResourceResult::name, c -> c));
        DescribeConfigsResourceResult auto = entries.get("auto.create.topics.enable");
        assertEquals("true", auto.value());
        assertEquals(ConfigSource.DEFAULT_CONFIG.id(), auto.configSource());
        assertTrue(auto.readOnly());
        DescribeConfigsResourceResult partitions = entries.get("num.partitions");
        assertEquals("2", partitions.value());
        assertEquals(ConfigSource.STATIC_BROKER_CONFIG.id(), partitions.configSource());
        assertEquals("1", partitions.synonyms().get(1).value());
        assertEquals("3", entries.get("default.replication.factor").value());
        // The cluster-wide default resource has no file behind it: only dynamic keys.
        DescribeConfigsRequestData defaults = new DescribeConfigsRequestData();
        defaults.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName(""));
        DescribeConfigsResponseData clusterWide = call(2, ApiKeys.DESCRIBE_CONFIGS, (short) 4, defaults);
        assertTrue(clusterWide.results().get(0).configs().stream().noneMatch(c -> c.name().equals("num.partitions")));
    }

    // ------------------------------------------------------------------ DeleteRecords

    @Test
    void deleteRecordsFollowsTheOffsetTable() throws Exception {
        createTopic("kc-records", 1, 3);
        TopicPartition tp = new TopicPartition("kc-records", 0);
        try (TidelineProducer producer = new TidelineProducer(clientConfigWith("acks", "all"))) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord("kc-records", 0, null, ("r" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        int leader = leaderOf(tp);
        int follower = leader % 3 + 1;
        Awaitility.await("high watermark 10").atMost(WAIT)
                .until(() -> cluster.node(leader).replicaManager().partition(tp).orElseThrow().log().highWatermark() == 10);

        assertEquals(List.of(0L, 3L), deleteRecords(leader, "kc-records", 0, 3));
        assertEquals(List.of(0L, 3L), deleteRecords(leader, "kc-records", 0, 2), "below the log start");
        assertEquals(List.of(0L, 3L), deleteRecords(leader, "kc-records", 0, 3), "at the log start");
        assertEquals(List.of(0L, 3L), deleteRecords(leader, "kc-records", 0, 0), "0 is a no-op");
        assertEquals(List.of(0L, 6L), deleteRecords(leader, "kc-records", 0, 6), "between");
        assertEquals(List.of((long) Errors.OFFSET_OUT_OF_RANGE.code(), -1L), deleteRecords(leader, "kc-records", 0, 11), "above HW");
        assertEquals(List.of((long) Errors.OFFSET_OUT_OF_RANGE.code(), -1L), deleteRecords(leader, "kc-records", 0, -2));
        assertEquals(List.of((long) Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), -1L), deleteRecords(leader, "kc-records", 7, 1));
        assertEquals(List.of((long) Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), -1L), deleteRecords(leader, "kc-nothing", 0, 1));
        assertEquals(List.of((long) Errors.NOT_LEADER_OR_FOLLOWER.code(), -1L), deleteRecords(follower, "kc-records", 0, 8));
        assertEquals(6L, cluster.node(leader).replicaManager().partition(tp).orElseThrow().log().logStartOffset(),
                "refused requests moved nothing");
        assertEquals(List.of(0L, 10L), deleteRecords(leader, "kc-records", 0, -1), "-1 is the high watermark");
        assertEquals(List.of(0L, 10L), deleteRecords(leader, "kc-records", 0, 10), "at the high watermark");
        for (TidelineNode n : cluster.running()) {
            assertEquals(10L, n.replicaManager().partition(tp).orElseThrow().log().logStartOffset(), "node " + n.nodeId());
        }
    }

    private List<Long> deleteRecords(int node, String topic, int partition, long offset) throws Exception {
        DeleteRecordsRequestData request = new DeleteRecordsRequestData().setTimeoutMs(10_000).setTopics(List.of(
                new DeleteRecordsRequestData.DeleteRecordsTopic().setName(topic).setPartitions(List.of(
                        new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(partition).setOffset(offset)))));
        DeleteRecordsResponseData answer = call(node, ApiKeys.DELETE_RECORDS, (short) 2, request);
        DeleteRecordsResponseData.DeleteRecordsPartitionResult r = answer.topics().find(topic).partitions().find(partition);
        return List.of((long) r.errorCode(), r.lowWatermark());
    }

    // ------------------------------------------------------------------ reassignments and elections

    @Test
    void aReassignmentIsListedWhileItRunsAndGoneWhenDoneAndACancelOfNothingIsRefused() throws Exception {
        assertTrue(admin.createTopic("kc-move", Map.of(0, List.of(1)), Map.of()).isSuccess());
        awaitLeader(new TopicPartition("kc-move", 0), 1);
        AlterPartitionReassignmentsResponseData moved = call(2, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, (short) 0,
                reassign("kc-move", 0, List.of(2)));
        assertEquals(Errors.NONE.code(), moved.errorCode());
        assertEquals(Errors.NONE.code(), moved.responses().get(0).partitions().get(0).errorCode(),
                moved.responses().get(0).partitions().get(0).errorMessage());

        Awaitility.await("the move completes").atMost(WAIT).until(() -> {
            ListPartitionReassignmentsResponseData listed = call(3, ApiKeys.LIST_PARTITION_REASSIGNMENTS, (short) 0,
                    new ListPartitionReassignmentsRequestData().setTopics(List.of(
                            new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics()
                                    .setName("kc-move").setPartitionIndexes(List.of(0)))));
            if (!listed.topics().isEmpty()) {
                ListPartitionReassignmentsResponseData.OngoingPartitionReassignment p = listed.topics().get(0).partitions().get(0);
                assertEquals(List.of(2), p.addingReplicas());
                assertEquals(List.of(1), p.removingReplicas());
                return false;
            }
            return cluster.node(3).image().topic("kc-move").orElseThrow().partition(0).getReplicasList().equals(List.of(2));
        });

        AlterPartitionReassignmentsResponseData cancel = call(1, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, (short) 1,
                reassign("kc-move", 0, null));
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS.code(), cancel.responses().get(0).partitions().get(0).errorCode());

        AlterPartitionReassignmentsRequestData grow = reassign("kc-move", 0, List.of(2, 3)).setAllowReplicationFactorChange(false);
        AlterPartitionReassignmentsResponseData refused = call(1, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, (short) 1, grow);
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), refused.responses().get(0).partitions().get(0).errorCode());
        assertEquals(List.of(2), cluster.node(3).image().topic("kc-move").orElseThrow().partition(0).getReplicasList());
    }

    @Test
    void aNegativePartitionInAReassignmentRequestGetsATypedAnswerNotAServerError() throws Exception {
        createTopic("kc-negative", 1, 3);
        // Listing one: no reassignment moves it, so the answer lists nothing (B163).
        ListPartitionReassignmentsResponseData listed = call(1, ApiKeys.LIST_PARTITION_REASSIGNMENTS, (short) 0,
                new ListPartitionReassignmentsRequestData().setTopics(List.of(
                        new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics()
                                .setName("kc-negative").setPartitionIndexes(List.of(-1, Integer.MIN_VALUE, 0)))));
        assertEquals(Errors.NONE.code(), listed.errorCode());
        assertEquals(List.of(), listed.topics());
        io.tideline.proto.admin.ListPartitionReassignmentsResponse grpcListed = cluster.admin(1)
                .listPartitionReassignments(io.tideline.proto.admin.ListPartitionReassignmentsRequest.newBuilder()
                        .addPartitions(io.tideline.proto.admin.ListReassignmentsPartition.newBuilder()
                                .setTopic("kc-negative").setPartition(-1)).build());
        assertEquals(0, grpcListed.getReassignmentsCount());

        // Moving one, with replicas or with none: the partition's own typed error, and nothing moves.
        for (List<Integer> replicas : List.of(List.of(2), List.<Integer>of())) {
            AlterPartitionReassignmentsResponseData moved = call(1, ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
                    (short) 0, reassign("kc-negative", -1, replicas));
            short code = moved.responses().get(0).partitions().get(0).errorCode();
            assertTrue(code != Errors.NONE.code() && code != Errors.UNKNOWN_SERVER_ERROR.code(),
                    replicas + ": " + moved);
        }
        assertEquals(3, cluster.node(1).image().topic("kc-negative").orElseThrow().partition(0).getReplicasCount());
    }

    private static AlterPartitionReassignmentsRequestData reassign(String topic, int partition, List<Integer> replicas) {
        return new AlterPartitionReassignmentsRequestData().setTopics(List.of(new ReassignableTopic().setName(topic)
                .setPartitions(List.of(new ReassignablePartition().setPartitionIndex(partition).setReplicas(replicas)))));
    }

    @Test
    void electLeadersAnswersEachPartitionAndRefusesAnUnknownType() throws Exception {
        createTopic("kc-elect", 2, 3);
        ElectLeadersRequestData request = new ElectLeadersRequestData().setElectionType((byte) 0).setTimeoutMs(10_000);
        ElectLeadersRequestData.TopicPartitions tps = new ElectLeadersRequestData.TopicPartitions().setTopic("kc-elect")
                .setPartitions(new ArrayList<>(List.of(0, 1, 9)));
        request.topicPartitions().add(tps);
        ElectLeadersResponseData answer = call(1, ApiKeys.ELECT_LEADERS, (short) 2, request);
        assertEquals(Errors.NONE.code(), answer.errorCode());
        Map<Integer, Short> codes = answer.replicaElectionResults().get(0).partitionResult().stream()
                .collect(Collectors.toMap(r -> r.partitionId(), r -> r.errorCode()));
        // Settled partitions already have their preferred leader.
        assertEquals(Errors.ELECTION_NOT_NEEDED.code(), codes.get(0));
        assertEquals(Errors.ELECTION_NOT_NEEDED.code(), codes.get(1));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), codes.get(9));

        ElectLeadersResponseData all = call(2, ApiKeys.ELECT_LEADERS, (short) 1,
                new ElectLeadersRequestData().setElectionType((byte) 0).setTopicPartitions(null));
        assertEquals(Errors.NONE.code(), all.errorCode());
        assertTrue(all.replicaElectionResults().stream().allMatch(t -> t.partitionResult().stream()
                .allMatch(p -> p.errorCode() == Errors.NONE.code() || p.errorCode() == Errors.ELECTION_NOT_NEEDED.code())),
                all.toString());

        ElectLeadersResponseData badType = call(1, ApiKeys.ELECT_LEADERS, (short) 2,
                new ElectLeadersRequestData().setElectionType((byte) 7).setTopicPartitions(null));
        assertEquals(Errors.INVALID_REQUEST.code(), badType.errorCode());
    }

    // ------------------------------------------------------------------ cluster and log dirs

    @Test
    void describeClusterNamesEveryBrokerWithItsEndpointAndALiveController() throws Exception {
        DescribeClusterResponseData answer = call(2, ApiKeys.DESCRIBE_CLUSTER, (short) 2,
                new DescribeClusterRequestData().setEndpointType((byte) 1));
        assertEquals(Errors.NONE.code(), answer.errorCode());
        assertEquals(cluster.node(1).config().node().clusterId(), answer.clusterId());
        assertEquals(3, answer.brokers().size());
        for (int id = 1; id <= 3; id++) {
            DescribeClusterResponseData.DescribeClusterBroker b = answer.brokers().find(id);
            assertEquals(cluster.kafkaPort(id), b.port());
            assertEquals("127.0.0.1", b.host());
            assertNull(b.rack());
            assertFalse(b.isFenced());
        }
        assertTrue(answer.controllerId() >= 1 && answer.controllerId() <= 3, "controller " + answer.controllerId());
        int quorumLeader = cluster.running().stream().filter(n -> n.quorum().map(q -> q.isLeader()).orElse(false))
                .findFirst().map(TidelineNode::nodeId).orElse(-1);
        assertEquals(quorumLeader, answer.controllerId());

        DescribeClusterResponseData controllers = call(2, ApiKeys.DESCRIBE_CLUSTER, (short) 1,
                new DescribeClusterRequestData().setEndpointType((byte) 2));
        assertEquals(Errors.UNSUPPORTED_ENDPOINT_TYPE.code(), controllers.errorCode());
    }

    @Test
    void describeLogDirsListsThisBrokersReplicasWithSizesAndTheDirsSpace() throws Exception {
        createTopic("kc-dirs", 2, 3);
        try (TidelineProducer producer = new TidelineProducer(clientConfigWith("acks", "all"))) {
            producer.send(new ProducerRecord("kc-dirs", 0, null, "x".repeat(100).getBytes(StandardCharsets.UTF_8))).get();
        }
        DescribeLogDirsRequestData request = new DescribeLogDirsRequestData();
        request.topics().add(new DescribeLogDirsRequestData.DescribableLogDirTopic().setTopic("kc-dirs")
                .setPartitions(new ArrayList<>(List.of(0))));
        DescribeLogDirsResponseData answer = call(3, ApiKeys.DESCRIBE_LOG_DIRS, (short) 4, request);
        assertEquals(1, answer.results().size());
        DescribeLogDirsResponseData.DescribeLogDirsResult dir = answer.results().get(0);
        assertEquals(Errors.NONE.code(), dir.errorCode());
        assertEquals(cluster.node(3).config().store().logDirs().get(0).toString(), dir.logDir());
        assertTrue(dir.totalBytes() > 0 && dir.usableBytes() > 0 && dir.usableBytes() <= dir.totalBytes(), dir.toString());
        assertEquals(1, dir.topics().size());
        DescribeLogDirsResponseData.DescribeLogDirsTopic topic = dir.topics().get(0);
        assertEquals("kc-dirs", topic.name());
        assertEquals(List.of(0), topic.partitions().stream().map(p -> p.partitionIndex()).toList(), "only partition 0 asked");
        Awaitility.await("replica 3 has the batch").atMost(WAIT).until(() -> {
            DescribeLogDirsResponseData again = call(3, ApiKeys.DESCRIBE_LOG_DIRS, (short) 1, request);
            return again.results().get(0).topics().get(0).partitions().get(0).partitionSize() > 100;
        });

        DescribeLogDirsResponseData none = call(3, ApiKeys.DESCRIBE_LOG_DIRS, (short) 4, new DescribeLogDirsRequestData());
        assertTrue(none.results().get(0).topics().isEmpty(), "an empty topic list asks for nothing");
        DescribeLogDirsResponseData all = call(3, ApiKeys.DESCRIBE_LOG_DIRS, (short) 5,
                new DescribeLogDirsRequestData().setTopics(null));
        assertTrue(all.results().get(0).topics().stream().anyMatch(t -> t.name().equals("kc-dirs") && t.partitions().size() == 2));
    }

    @Test
    void everyApiRegistersWithinTheVersionsKafkaClientsKnows() {
        KafkaApis registry = new KafkaApis().registerAll(apis(1).values());
        assertEquals(11, registry.all().size());
        assertTrue(registry.serves(ApiKeys.CREATE_TOPICS, (short) 7));
        assertTrue(registry.serves(ApiKeys.DELETE_TOPICS, (short) 6));
        assertTrue(registry.serves(ApiKeys.DESCRIBE_LOG_DIRS, (short) 5));
        assertFalse(registry.serves(ApiKeys.ALTER_CONFIGS, (short) 0), "AlterConfigs is not served");
    }

    @Test
    void listOperationsAppendOnlyNewEntriesAndSubtractToEmpty() {
        assertEquals("0:1,0:2", IncrementalAlterConfigsApi.listOp("0:1", "0:2, 0:1", true));
        assertEquals("0:1", IncrementalAlterConfigsApi.listOp(null, "0:1", true));
        assertEquals("", IncrementalAlterConfigsApi.listOp("0:1", "0:1", false));
        assertEquals("0:2", IncrementalAlterConfigsApi.listOp("0:1,0:2", "0:1,0:9", false));
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The admin APIs over admin services of their own built from node {@code node}'s parts, as the node
     * builds its own; a broker's Kafka endpoint is its second one, as the listener registers it.
     */
    private Map<ApiKeys, KafkaApi> apis(int node) {
        TidelineNode n = cluster.node(node);
        ServerConfig config = n.config();
        BrokerConfigResolver resolver = new BrokerConfigResolver(config.originals());
        AdminServices services = AdminServices.create(node, config.node().clusterId(), n::image, n.replicaManager(),
                n.logManager(), n.controllerClient(), resolver, config.node().voters(), config.node().numPartitions(),
                config.node().defaultReplicationFactor());
        AdminDeps deps = new AdminDeps(node, config.node().clusterId(), services, n::image, resolver, config.originals(),
                r -> r.getEndpointsCount() < 2 ? Optional.empty() : Optional.of(r.getEndpoints(1)));
        Map<ApiKeys, KafkaApi> out = new HashMap<>();
        KafkaAdminApis.create(deps).forEach(a -> out.put(a.key(), a));
        return out;
    }

    /**
     * One request through kafka-clients' writer and reader at {@code version}, the answer the same way back, as
     * the listener would send it.
     */
    @SuppressWarnings("unchecked")
    private <T extends ApiMessage> T call(int node, ApiKeys key, short version, ApiMessage request) throws Exception {
        ApiMessage parsed = key.messageType.newRequest();
        parsed.read(new ByteBufferAccessor(MessageUtil.toByteBufferAccessor(request, version).buffer()), version);
        KafkaRequest kafkaRequest = new KafkaRequest(new RequestHeader(key, version, "kafka-admin-test", ++correlation),
                parsed, new InetSocketAddress("127.0.0.1", 1));
        ApiMessage answer = apis(node).get(key).handle(kafkaRequest).get(30, TimeUnit.SECONDS);
        ApiMessage read = key.messageType.newResponse();
        read.read(new ByteBufferAccessor(MessageUtil.toByteBufferAccessor(answer, version).buffer()), version);
        return (T) read;
    }

    private static AlterConfigsResource resource(ConfigResource.Type type, String name, AlterableConfig... configs) {
        AlterConfigsResource r = new AlterConfigsResource().setResourceType(type.id()).setResourceName(name);
        for (AlterableConfig c : configs) {
            r.configs().add(c);
        }
        return r;
    }

    private static AlterableConfig config(String name, OpType op, String value) {
        return new AlterableConfig().setName(name).setConfigOperation(op.id()).setValue(value);
    }

    private static void assertAltered(IncrementalAlterConfigsResponseData answer) {
        answer.responses().forEach(r -> assertEquals(Errors.NONE.code(), r.errorCode(),
                r.resourceName() + ": " + r.errorMessage()));
    }

    private void awaitTopicConfig(String topic, String key, String value) {
        Awaitility.await(topic + " " + key + "=" + value).atMost(WAIT).until(() -> cluster.running().stream()
                .allMatch(n -> value.equals(n.image().topic(topic).map(t -> t.configs().get(key)).orElse(null))));
    }

    private void createTopic(String topic, int partitions, int replicationFactor) {
        assertTrue(admin.createTopic(topic, partitions, replicationFactor, Map.of()).isSuccess(), topic);
        awaitTopic(topic);
        Awaitility.await(topic + " led").atMost(WAIT).until(() -> {
            List<PartitionDescription> ps = admin.describeTopics(List.of(topic)).get(0).partitions();
            return ps.size() == partitions && ps.stream().allMatch(p -> p.leader() > 0 && p.isr().size() == replicationFactor
                    && leadsLocally(new TopicPartition(topic, p.partition()), p.leader()));
        });
    }

    private void awaitTopic(String topic) {
        Awaitility.await(topic + " in every image").atMost(WAIT)
                .until(() -> cluster.running().stream().allMatch(n -> n.image().topic(topic).isPresent()));
    }

    private void awaitLeader(TopicPartition tp, int id) {
        Awaitility.await(tp + " led by " + id).atMost(WAIT).until(() -> leadsLocally(tp, id));
    }

    private boolean leadsLocally(TopicPartition tp, int id) {
        return cluster.running().stream().anyMatch(n -> n.nodeId() == id
                && n.replicaManager().partition(tp).map(p -> p.isLeader()).orElse(false));
    }

    private int leaderOf(TopicPartition tp) {
        return cluster.node(1).image().topic(tp.topic()).orElseThrow().partition(tp.partition()).getLeader();
    }

    private Map<String, Object> clientConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", cluster.bootstrapServers());
        config.put("retry.backoff.ms", 50);
        config.put("request.timeout.ms", 10_000);
        return config;
    }

    private Map<String, Object> clientConfigWith(String key, Object value) {
        Map<String, Object> config = clientConfig();
        config.put(key, value);
        return config;
    }
}
