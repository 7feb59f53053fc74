package io.tideline.tools.cli;

import io.tideline.client.ChannelFactory;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicResult;
import io.tideline.common.time.Time;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code tideline admin}: topics and DeleteRecords through the admin client, in the manner of Kafka's
 * {@code kafka-topics.sh} and {@code kafka-delete-records.sh}.
 *
 * <pre>
 * tideline admin --bootstrap-server 127.0.0.1:9392 topics --create --topic orders --partitions 3 --replication-factor 3 [--config k=v ...]
 * tideline admin --bootstrap-server 127.0.0.1:9392 topics --describe [--topic orders] [--under-replicated-partitions]
 * tideline admin --bootstrap-server 127.0.0.1:9392 topics --list
 * tideline admin --bootstrap-server 127.0.0.1:9392 delete-records --offset-json-file offsets.json
 * tideline admin --bootstrap-server 127.0.0.1:9392 log-dirs --describe [--broker-list 1,2] [--topic-list orders]
 * tideline admin --bootstrap-server 127.0.0.1:9392 explain-retention --topic orders --partition 0 [--broker 2]
 * tideline admin --bootstrap-server 127.0.0.1:9392 cluster --describe
 * tideline admin --bootstrap-server 127.0.0.1:9392 replicas --describe --topic orders [--partition 0]
 * tideline admin --bootstrap-server 127.0.0.1:9392 replicas --rebuild --topic orders --partition 0 --broker 3
 * tideline admin --bootstrap-server 127.0.0.1:9392 consumer-groups --describe --group readers
 * </pre>
 *
 * The options of this command ({@code --bootstrap-server}, {@code --command-config}, {@code --output})
 * may also follow the subcommand. Uses only the client library ({@code io.tideline.client}), never
 * server classes. Exit codes are {@link Cli}'s.
 */
@Command(name = "admin", sortOptions = false, mixinStandardHelpOptions = false,
        description = "Topics, configs, leader election, consumer groups, DeleteRecords, log dirs, retention explained "
                + "and the cluster's view, through the admin client.")
public final class AdminCommand implements Callable<Integer> {

    /** Text for people, json (one document on one line) for scripts; shapes in docs/cli.md. */
    public enum OutputFormat { text, json }

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Option(names = "--output", paramLabel = "text|json", defaultValue = "text", scope = ScopeType.INHERIT,
            description = "text (default) or json.")
    OutputFormat output;

    @Option(names = {"-h", "--help"}, usageHelp = true, scope = ScopeType.INHERIT, description = "Show this help.")
    boolean help;

    final CliIo io;
    final Time time;

    AdminCommand(CliIo io, Time time) {
        this.io = io;
        this.time = time;
    }

    public static void main(String[] args) {
        Cli.useToolLogging();
        System.exit(run(args, CliIo.system()));
    }

    /** Runs as {@code main} would, on the given streams; returns the exit code. */
    public static int run(String[] args, CliIo io) {
        return run(args, io, Time.SYSTEM);
    }

    static int run(String[] args, CliIo io, Time time) {
        AdminCommand admin = new AdminCommand(io, time);
        CommandLine cmd = new CommandLine(admin)
                .addSubcommand(new TopicsCommand(admin))
                .addSubcommand(new DeleteRecordsCommand(admin))
                .addSubcommand(new LeaderElectionCommand(admin))
                .addSubcommand(new ConfigsCommand(admin))
                .addSubcommand(new LogDirsCommand(admin))
                .addSubcommand(new ExplainRetentionCommand(admin))
                .addSubcommand(new ClusterCommand(admin))
                .addSubcommand(new ReassignPartitionsCommand(admin))
                .addSubcommand(new ReplicasCommand(admin))
                .addSubcommand(new ConsumerGroupsCommand(admin));
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        return Cli.execute("admin", cmd, io, args);
    }

    @Override
    public Integer call() {
        throw CliException.usage("name a command: topics, configs, leader-election, reassign-partitions, replicas, "
                + "consumer-groups, delete-records, log-dirs, explain-retention or cluster (see --help)");
    }

    boolean json() {
        return output == OutputFormat.json;
    }

    /** The admin client's settings from the options given (checked: a bad key or value is a usage error). */
    Map<String, Object> settings() {
        return ClientSettings.admin(connection);
    }

    /**
     * The cluster's answer about one topic, as every topic-changing command gives it: the JSON line
     * under --output json, and a failure as one line ({@code what}: the error) with exit 1.
     */
    void answer(TopicResult result, String what) {
        if (json()) {
            io.out().println(JsonOutput.write(JsonOutput.TopicOutcome.of(result)));
        }
        if (!result.isSuccess()) {
            throw CliException.failed(what + ": " + result.error() + ": " + result.message());
        }
    }

    /**
     * Waits until {@code topic} shows {@code partitions} partitions with leaders, so a script may use it
     * right away; warns (without failing) when they do not within default.api.timeout.ms.
     */
    void awaitLeaders(TidelineAdmin client, String topic, int partitions) {
        String waiting = TopicCheck.awaitLeaders(client, topic, partitions, ClientSettings.apiTimeoutMs(settings()), time);
        if (waiting != null) {
            io.err().println("admin: WARN " + waiting);
        }
    }

    /** An admin client for the options given; the caller closes it. */
    TidelineAdmin client() {
        return new TidelineAdmin(settings(), time, ChannelFactory.plaintext());
    }
}
