package io.tideline.cluster.kafkatools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Apache Kafka 4.4.0's own command-line tools, each run as a child JVM the way {@code kafka-run-class.sh} runs it:
 * one main class of the {@code kafka-tools} jar on the class path that the kafka-tools-runtime module resolved
 * from Maven Central ({@code kafka-tools-runtime/target/kafka-tools.classpath}: the tools, their dependencies, and
 * log4j2 behind slf4j 1.x as Kafka's distribution ships it), logging WARN and above to stderr.
 */
final class KafkaTools {
    static final String TOPIC_COMMAND = "org.apache.kafka.tools.TopicCommand";
    static final String PRODUCER_PERFORMANCE = "org.apache.kafka.tools.ProducerPerformance";
    static final String CONSUMER_PERFORMANCE = "org.apache.kafka.tools.ConsumerPerformance";
    static final String GET_OFFSET_SHELL = "org.apache.kafka.tools.GetOffsetShell";
    static final String DELETE_RECORDS = "org.apache.kafka.tools.DeleteRecordsCommand";
    static final String CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer";
    static final String CONSUMER_GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
    static final String REASSIGN_PARTITIONS = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";

    /**
     * Each tool JVM beside three nodes on two cores: a small heap and a JIT that starts fast (a tool's run is
     * seconds; Kafka's scripts' -Xmx512M and G1 only cost start-up time here).
     */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true");

    private final String classPath;
    private final Path log4jConfig;
    private final ChildProcess processes;

    private KafkaTools(String classPath, Path log4jConfig, ChildProcess processes) {
        this.classPath = classPath;
        this.log4jConfig = log4jConfig;
        this.processes = processes;
    }

    /**
     * The tools from the class path file the kafka-tools-runtime module writes in the repository; the log4j2
     * configuration is copied out of this test's resources into {@code dir}.
     */
    static KafkaTools fromBuild(Path repo, Path dir, ChildProcess processes) throws IOException {
        Path classPathFile = repo.resolve("kafka-tools-runtime/target/kafka-tools.classpath");
        if (!Files.isRegularFile(classPathFile)) {
            throw new IllegalStateException(classPathFile + " is missing: build through Maven with the module, e.g."
                    + " mvn -pl cluster-tests -am verify (it is written in generate-resources)");
        }
        String classPath = Files.readString(classPathFile, StandardCharsets.UTF_8).strip();
        Path log4j = dir.resolve("kafka-tools-log4j2.properties");
        try (var in = KafkaTools.class.getResourceAsStream("/kafka-tools-log4j2.properties")) {
            if (in == null) {
                throw new IllegalStateException("kafka-tools-log4j2.properties is not on the test class path");
            }
            Files.copy(in, log4j);
        }
        return new KafkaTools(classPath, log4j, processes);
    }

    ChildProcess.Result run(Duration atMost, String mainClass, String... args) throws IOException, InterruptedException {
        return processes.run(atMost, command(mainClass, args));
    }

    ChildProcess.Result runWithInput(Duration atMost, Path stdin, String mainClass, String... args)
            throws IOException, InterruptedException {
        return processes.run(atMost, command(mainClass, args), stdin);
    }

    private List<String> command(String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.add("-Dlog4j2.configurationFile=" + log4jConfig);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }
}
