package io.tideline.tools.cli;

import io.tideline.common.time.Time;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline perf produce | consume | e2e}: the shape of Kafka 4.4's {@code ProducerPerformance},
 * {@code ConsumerPerformance} and {@code EndToEndLatency}, with their flags and their summary lines on
 * stdout, so that a run against Tideline and a run of Kafka's tool against Kafka can be diffed line by
 * line (docs/cli.md lists what is accepted, ignored or refused).
 *
 * <p>Kafka's tools print their results and their warnings about the run (a consumer timeout, an empty
 * payload file) to stdout; these commands do the same with the same words. What only Tideline has to
 * say (settings its clients ignore, options it refuses) goes to stderr, one line each. Exit codes are
 * {@link Cli}'s: 2 for bad arguments, 1 when the cluster refused or records failed.
 */
@Command(name = "perf", sortOptions = false,
        description = "Producer, consumer and end-to-end latency benchmarks with the flags and output of Kafka's "
                + "kafka-producer-perf-test, kafka-consumer-perf-test and kafka-e2e-latency.")
public final class PerfCommand implements Callable<Integer> {
    private static final Set<String> SUBCOMMANDS = Set.of("produce", "consume", "e2e");

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    private PerfCommand() {
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
        CommandLine cmd = new CommandLine(new PerfCommand())
                .addSubcommand(new ProducerPerfCommand(io, time))
                .addSubcommand(new ConsumerPerfCommand(io, time))
                .addSubcommand(new EndToEndLatencyCommand(io, time));
        // Error lines name the subcommand ("perf produce: ..."), since the three take different flags.
        String name = args.length > 0 && SUBCOMMANDS.contains(args[0]) ? "perf " + args[0] : "perf";
        return Cli.execute(name, cmd, io, args);
    }

    @Override
    public Integer call() {
        throw CliException.usage("name a command: produce, consume or e2e (see --help)");
    }
}
