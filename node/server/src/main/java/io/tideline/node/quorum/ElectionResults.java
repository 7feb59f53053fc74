package io.tideline.node.quorum;

import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ItemResult;
import java.util.List;
import java.util.stream.Collectors;

/** What a periodic election's answer says, for its one log line. */
final class ElectionResults {
    private static final int MAX_NAMES_LOGGED = 20;

    private ElectionResults() {
    }

    /** The partitions that got a new leader. */
    static List<String> elected(ControllerResponse resp) {
        return resp.getResultsList().stream().filter(r -> r.getErrorCode() == Errors.NONE.code())
                .map(ItemResult::getName).toList();
    }

    /** The first few names: one line per round even when thousands of partitions move. */
    static String names(List<String> names) {
        String shown = names.stream().limit(MAX_NAMES_LOGGED).collect(Collectors.joining(", "));
        return names.size() > MAX_NAMES_LOGGED ? shown + " and " + (names.size() - MAX_NAMES_LOGGED) + " more" : shown;
    }
}
