package io.tideline.store.cleaner;

import io.tideline.store.segment.LogSegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits the segments a cleaning rewrites into runs that each become one cleaned segment (Kafka's
 * groupSegmentsBySize, docs/behaviours.md B187): consecutive segments while their bytes stay within
 * segment.bytes, their index bytes within segment.index.bytes, and their offsets within one segment's
 * relative-offset range (an int from the base offset).
 */
final class SegmentGroups {
    private SegmentGroups() {
    }

    /**
     * @param segments consecutive closed segments in offset order
     * @param endOffset the offset after the last of them (the next segment's base offset)
     */
    static List<List<LogSegment>> bySize(List<LogSegment> segments, long endOffset, int maxSize, int maxIndexSize) {
        List<List<LogSegment>> groups = new ArrayList<>();
        int i = 0;
        while (i < segments.size()) {
            List<LogSegment> group = new ArrayList<>();
            LogSegment first = segments.get(i);
            group.add(first);
            long size = first.size();
            long indexSize = first.offsetIndex().sizeInBytes();
            long timeIndexSize = first.timeIndex().sizeInBytes();
            i++;
            while (i < segments.size()) {
                LogSegment next = segments.get(i);
                long nextEnd = i + 1 < segments.size() ? segments.get(i + 1).baseOffset() : endOffset;
                if (size + next.size() > maxSize
                        || indexSize + next.offsetIndex().sizeInBytes() > maxIndexSize
                        || timeIndexSize + next.timeIndex().sizeInBytes() > maxIndexSize
                        || nextEnd - 1 - first.baseOffset() > Integer.MAX_VALUE) {
                    break;
                }
                group.add(next);
                size += next.size();
                indexSize += next.offsetIndex().sizeInBytes();
                timeIndexSize += next.timeIndex().sizeInBytes();
                i++;
            }
            groups.add(group);
        }
        return groups;
    }
}
