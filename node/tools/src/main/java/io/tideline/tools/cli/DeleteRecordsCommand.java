package io.tideline.tools.cli;

import io.tideline.client.DeleteRecordsResult;
import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin delete-records --offset-json-file F}: DeleteRecords for every partition of the file
 * ({@link OffsetJsonFile}, the format of docs/behaviours.md B53), sent by the admin client to each
 * partition's leader. Prints each partition's new low watermark (log start offset) or its error, as Kafka's
 * {@code kafka-delete-records.sh} does:
 *
 * <pre>
 * Executing records delete operation
 * Records delete operation completed:
 * partition: orders-0	low_watermark: 3
 * partition: orders-7	error: UNKNOWN_TOPIC_OR_PARTITION: This server does not host this topic-partition.
 * </pre>
 *
 * Exits with {@link Cli#EXIT_FAILED} when any partition failed, after printing every result. The file is
 * read and checked whole before anything is sent.
 */
@Command(name = "delete-records", sortOptions = false,
        description = "Delete the records before the given offset of each partition in a JSON file ("
                + "{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":3}],\"version\":1}); "
                + "offset -1 means up to the high watermark.")
final class DeleteRecordsCommand implements Callable<Integer> {

    @Option(names = "--offset-json-file", paramLabel = "FILE", required = true,
            description = "The partitions and offsets, as JSON.")
    Path offsetJsonFile;

    private final AdminCommand admin;

    DeleteRecordsCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        Map<TopicPartition, Long> offsets = OffsetJsonFile.read(offsetJsonFile);
        PrintStream out = admin.io.out();
        Map<TopicPartition, DeleteRecordsResult> results;
        try (TidelineAdmin client = admin.client()) {
            if (!admin.json()) {
                out.println("Executing records delete operation");
                out.flush();
            }
            results = client.deleteRecords(offsets);
        }
        List<JsonOutput.DeletedPartition> json = new ArrayList<>();
        int failed = 0;
        if (!admin.json()) {
            out.println("Records delete operation completed:");
        }
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            DeleteRecordsResult r = results.get(e.getKey());
            if (!r.isSuccess()) {
                failed++;
            }
            if (admin.json()) {
                json.add(JsonOutput.DeletedPartition.of(r, e.getValue()));
            } else if (r.isSuccess()) {
                out.println("partition: " + e.getKey() + "\tlow_watermark: " + r.lowWatermark());
            } else {
                out.println("partition: " + e.getKey() + "\terror: " + r.error() + ": " + r.message());
            }
        }
        if (admin.json()) {
            out.println(JsonOutput.write(new JsonOutput.DeletedRecords(json)));
        }
        if (failed > 0) {
            throw CliException.failed(failed + " of " + offsets.size() + " partition" + (offsets.size() == 1 ? "" : "s")
                    + " failed");
        }
        return Cli.EXIT_OK;
    }
}
