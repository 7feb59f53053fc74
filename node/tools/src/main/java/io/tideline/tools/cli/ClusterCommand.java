package io.tideline.tools.cli;

import io.tideline.client.ClusterDescription;
import io.tideline.client.TidelineAdmin;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin cluster --describe}: the cluster as the metadata quorum's leader sees it, one line for the
 * cluster and one per broker, in the tab-separated {@code Key: value} style of {@code topics --describe}
 * ("-" for a value that is unknown or not set; times as ISO-8601):
 *
 * <pre>
 * ClusterId: tideline	Controller: 2	ControllerTerm: 3	CommittedOffset: 120	AppliedOffset: 120
 * 	Broker: 1	State: RUNNING	Rack: -	Endpoint: 127.0.0.1:9392	QuorumAddress: 127.0.0.1:9192	Metrics: http://127.0.0.1:9292/metrics	MetadataOffset: 120	LastHeartbeat: 2026-12-01T14:05:31.123Z
 * </pre>
 *
 * When the quorum does not answer (no leader, or no majority), the answering broker's own view is
 * printed with {@code Controller: -}, then one error line, and the exit code is 1.
 */
@Command(name = "cluster", sortOptions = false,
        description = "Describe the cluster: the controller (the metadata quorum leader), metadata offsets and brokers.")
final class ClusterCommand implements Callable<Integer> {

    @Option(names = "--describe", required = true, description = "Describe the cluster.")
    boolean describe;

    private final AdminCommand admin;

    ClusterCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        ClusterDescription d;
        try (TidelineAdmin client = admin.client()) {
            d = client.describeCluster();
        }
        PrintStream out = admin.io.out();
        if (admin.json()) {
            out.println(JsonOutput.write(Described.of(d)));
        } else {
            out.println("ClusterId: " + d.clusterId() + "\tController: " + known(d.controllerId()) + "\tControllerTerm: "
                    + known(d.controllerTerm()) + "\tCommittedOffset: " + known(d.committedOffset()) + "\tAppliedOffset: "
                    + known(d.appliedOffset()));
            for (ClusterDescription.Broker b : d.brokers()) {
                out.println("\tBroker: " + b.id() + "\tState: " + b.state() + "\tRack: " + text(b.rack())
                        + "\tEndpoint: " + (b.host().isEmpty() ? "-" : b.host() + ":" + b.port())
                        + "\tQuorumAddress: " + text(b.quorumAddress()) + "\tMetrics: " + text(b.metricsUrl())
                        + "\tMetadataOffset: " + known(b.metadataOffset()) + "\tLastHeartbeat: "
                        + (b.lastHeartbeatMs() < 0 ? "-" : Instant.ofEpochMilli(b.lastHeartbeatMs()).toString()));
            }
        }
        if (!d.fromQuorum()) {
            throw CliException.failed("the metadata quorum did not answer, this is the answering broker's own view: " + d.error()
                    + ": " + d.message());
        }
        return Cli.EXIT_OK;
    }

    private static String known(long value) {
        return value < 0 ? "-" : Long.toString(value);
    }

    private static String text(String value) {
        return value == null || value.isEmpty() ? "-" : value;
    }

    /** {@code cluster --describe --output json}; -1 for an unknown number, "" for an unset text. */
    record Described(String clusterId, int controllerId, long controllerTerm, long committedOffset, long appliedOffset,
                     List<Broker> brokers, String error, String message) {
        static Described of(ClusterDescription d) {
            return new Described(d.clusterId(), d.controllerId(), d.controllerTerm(), d.committedOffset(),
                    d.appliedOffset(), d.brokers().stream().map(Broker::of).toList(), d.error().name(),
                    d.message() == null ? "" : d.message());
        }
    }

    record Broker(int id, String state, boolean fenced, String rack, String host, int port, String quorumAddress,
                  String metricsUrl, long metadataOffset, long lastHeartbeatMs) {
        static Broker of(ClusterDescription.Broker b) {
            return new Broker(b.id(), b.state(), b.fenced(), b.rack(), b.host(), b.port(), b.quorumAddress(),
                    b.metricsUrl(), b.metadataOffset(), b.lastHeartbeatMs());
        }
    }
}
