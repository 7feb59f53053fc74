package io.tideline.store.log;

import io.tideline.store.segment.LogSegment;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The segments of one log, ordered by base offset; the last is the active segment.
 *
 * <p>Thread-safety: one writer at a time (the owning {@link Log}'s lock) adds and removes segments; readers look
 * them up without a lock and see each segment either in or out, never half added, because the map is a
 * concurrent one. A segment is always kept under its own base offset.
 */
final class LogSegments {
    private final ConcurrentNavigableMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();

    void add(LogSegment segment) {
        segments.put(segment.baseOffset(), segment);
    }

    void addAll(Collection<LogSegment> loaded) {
        for (LogSegment segment : loaded) {
            add(segment);
        }
    }

    void remove(long baseOffset) {
        segments.remove(baseOffset);
    }

    void clear() {
        segments.clear();
    }

    /** Whether {@code segment} itself (not just one with its base offset) is in the log. */
    boolean contains(LogSegment segment) {
        return segments.get(segment.baseOffset()) == segment;
    }

    int size() {
        return segments.size();
    }

    /** Bytes of all segments' {@code .log} files. */
    long sizeInBytes() {
        long size = 0;
        for (LogSegment segment : segments.values()) {
            size += segment.size();
        }
        return size;
    }

    /** The live segments in offset order: iteration sees segments added or removed meanwhile, or not. */
    Collection<LogSegment> values() {
        return segments.values();
    }

    /** A copy of the segments in offset order. */
    List<LogSegment> snapshot() {
        return new ArrayList<>(segments.values());
    }

    LogSegment activeSegment() {
        return segments.lastEntry().getValue();
    }

    /** The first segment; null when there is none (after a close and delete). */
    LogSegment firstSegment() {
        Map.Entry<Long, LogSegment> first = segments.firstEntry();
        return first == null ? null : first.getValue();
    }

    long firstBaseOffset() {
        return segments.firstKey();
    }

    /** The segment that would hold {@code offset}: the last with a base offset at or below it, or null. */
    LogSegment floorSegment(long offset) {
        Map.Entry<Long, LogSegment> floor = segments.floorEntry(offset);
        return floor == null ? null : floor.getValue();
    }

    /** The segment after the one starting at {@code baseOffset}, or null. */
    LogSegment higherSegment(long baseOffset) {
        Map.Entry<Long, LogSegment> higher = segments.higherEntry(baseOffset);
        return higher == null ? null : higher.getValue();
    }

    /** The segments with a base offset above {@code offset}. */
    List<LogSegment> segmentsAbove(long offset) {
        return new ArrayList<>(segments.tailMap(offset, false).values());
    }

    /** The live segments from the one holding {@code offset} (all of them if it is below the first) to the end. */
    Collection<LogSegment> from(long offset) {
        Long first = segments.floorKey(offset);
        NavigableMap<Long, LogSegment> view = first == null ? segments : segments.tailMap(first, true);
        return view.values();
    }

    /** The live segments holding offsets in [from, to): from the one holding {@code from} to the last below {@code to}. */
    Collection<LogSegment> holding(long from, long to) {
        Long first = segments.floorKey(from);
        return (first == null ? segments.headMap(to, false) : segments.subMap(first, true, to, false)).values();
    }
}
