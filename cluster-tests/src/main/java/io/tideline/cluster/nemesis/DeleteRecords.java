package io.tideline.cluster.nemesis;

import io.tideline.client.DeleteRecordsResult;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.log.Log;
import java.util.Map;
import java.util.Optional;

/**
 * An operator's DeleteRecords on the round's partition, below {@code fraction} of the leader's high watermark
 * at the time it runs: the sequence is fixed by the seed, the offsets are not, so the step names a fraction and
 * the report the offset it came to. A refusal or a timeout (a follower cut off delays the low watermark) is an
 * outcome.
 */
public record DeleteRecords(double fraction) implements Operation {
    public DeleteRecords {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException("fraction must be in (0, 1]: " + fraction);
        }
    }

    @Override
    public String kind() {
        return "delete-records";
    }

    @Override
    public void update(ClusterModel model) {
    }

    @Override
    public String apply(NemesisContext context) {
        Optional<Log> leaderLog = context.runningLeader().flatMap(context::log);
        if (leaderLog.isEmpty()) {
            return "skipped: no running leader";
        }
        long before = (long) Math.floor(leaderLog.get().highWatermark() * fraction);
        try {
            DeleteRecordsResult r = context.admin().deleteRecords(Map.of(context.partition(), before))
                    .get(context.partition());
            return "before " + before + ": " + r.error() + (r.isSuccess() ? " low watermark " + r.lowWatermark()
                    : " " + r.message());
        } catch (TidelineException e) {
            return "before " + before + ": " + e.error() + " " + e.getMessage();
        }
    }

    @Override
    public String toString() {
        return "delete records below " + Math.round(fraction * 100) + "% of the high watermark";
    }
}
