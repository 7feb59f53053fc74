package io.tideline.node.tools;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.tideline.client.TransportException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline health [--server HOST:PORT] [--service NAME] [--timeout-ms MS]}: asks one node's standard gRPC
 * health service ({@code grpc.health.v1.Health/Check}) whether it serves, prints the answer and exits 0 only for
 * SERVING. This is the probe of the container health checks (docs/containers.md): a node is SERVING once it is
 * registered and unfenced, NOT_SERVING while it starts and once it stops (docs/node.md, start-up order).
 *
 * <p>Exit codes: 0 SERVING; 1 any other status, or no answer within the timeout (nothing listening, a paused
 * node, an unknown service name); 2 bad arguments. Failures are one line on stderr.
 */
@Command(name = "health", sortOptions = false,
        description = "Ask a node's gRPC health service whether it serves; exit 0 if SERVING, 1 if not.")
public final class HealthCheckCommand implements Callable<Integer> {
    public static final int EXIT_SERVING = 0;
    public static final int EXIT_NOT_SERVING = 1;
    public static final int EXIT_USAGE = 2;

    @Option(names = "--server", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:9392",
            description = "The node's gRPC listener (default: ${DEFAULT-VALUE}).")
    private String server;

    @Option(names = "--service", paramLabel = "NAME", defaultValue = "",
            description = "The gRPC service to ask about; empty (the default) is the node as a whole.")
    private String service;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
            description = "How long to wait for the answer, connecting included (default: ${DEFAULT-VALUE}).")
    private long timeoutMs;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    private final PrintStream out;
    private final PrintStream err;

    private HealthCheckCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        // Library log lines (Netty finds slf4j) stay off stdout, which carries only the status.
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "tideline-cli-logback.xml");
        }
        System.exit(run(args, System.out, System.err));
    }

    /** Parses the arguments, asks the node and returns the exit code; what {@code main} exits with. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cmd = new CommandLine(new HealthCheckCommand(out, err));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        cmd.setParameterExceptionHandler((e, a) -> {
            err.println("health: " + e.getMessage() + " (see --help)");
            return EXIT_USAGE;
        });
        return cmd.execute(args);
    }

    @Override
    public Integer call() throws InterruptedException {
        if (timeoutMs <= 0) {
            err.println("health: --timeout-ms must be positive, got " + timeoutMs);
            return EXIT_USAGE;
        }
        ManagedChannel channel;
        try {
            channel = Grpc.newChannelBuilder(server, InsecureChannelCredentials.create()).build();
        } catch (IllegalArgumentException e) {
            err.println("health: bad --server '" + server + "': " + e.getMessage());
            return EXIT_USAGE;
        }
        try {
            // Fails fast (UNAVAILABLE) when nothing listens: the prober retries, and "connection refused" says
            // more than a deadline would. The deadline bounds a node that accepts but does not answer.
            HealthCheckResponse response = HealthGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(service).build());
            ServingStatus status = response.getStatus();
            out.println(status);
            return status == ServingStatus.SERVING ? EXIT_SERVING : EXIT_NOT_SERVING;
        } catch (StatusRuntimeException e) {
            String description = e.getStatus().getDescription();
            Optional<String> wrongListener = TransportException.wrongListener(e.getStatus());
            if (wrongListener.isPresent()) {
                err.println("health: wrong port: " + server + ": " + wrongListener.get());
                return EXIT_NOT_SERVING;
            }
            err.println("health: " + server + ": " + e.getStatus().getCode()
                    + (description == null ? "" : ": " + description.lines().findFirst().orElse("")));
            return EXIT_NOT_SERVING;
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
