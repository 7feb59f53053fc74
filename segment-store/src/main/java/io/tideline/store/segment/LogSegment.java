package io.tideline.store.segment;

import io.tideline.common.errors.TidelineException;
import io.tideline.common.io.FileUtils;
import io.tideline.common.time.Time;
import io.tideline.store.index.OffsetIndex;
import io.tideline.store.index.OffsetIndex.OffsetPosition;
import io.tideline.store.index.TimeIndex;
import io.tideline.store.index.TimeIndex.TimestampOffset;
import io.tideline.store.index.TxnIndex;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One segment: a {@code .log} file and its {@code .index}, {@code .timeindex} and (when needed)
 * {@code .txnindex}, all named by the base offset. The active segment takes appends; a closed one
 * is immutable until it is deleted whole.
 *
 * <p>Thread-safety: appends, roll, truncation and recovery run under the owning log's lock (single
 * writer). Reads ({@link #read}, lookups) need no lock: they see data below the file's size, which
 * moves only after bytes are written. {@link #flush()} needs no lock either (the log's flush after a
 * roll runs on the scheduler): it only fsyncs, and skips files that a deletion already closed.
 */
public final class LogSegment implements AutoCloseable {
    private static final org.slf4j.Logger LOGGER = org.slf4j.LoggerFactory.getLogger(LogSegment.class);

    private final Path dir;
    private final long baseOffset;
    private final FileRecords log;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final TxnIndex txnIndex;
    private final int indexIntervalBytes;
    private final long rollJitterMs;
    private final long createdMs;
    private final FileLayer files;

    private volatile long maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
    private volatile long offsetOfMaxTimestampSoFar;
    /** Max timestamp of the first batch: the start of the segment's age for the time roll. */
    private volatile Optional<Long> rollingBasedTimestamp = Optional.empty();
    private int bytesSinceLastIndexEntry;

    private LogSegment(Path dir, long baseOffset, FileRecords log, OffsetIndex offsetIndex, TimeIndex timeIndex,
                       TxnIndex txnIndex, int indexIntervalBytes, long rollJitterMs, long createdMs, FileLayer files) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.log = log;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
        this.txnIndex = txnIndex;
        this.indexIntervalBytes = indexIntervalBytes;
        this.rollJitterMs = rollJitterMs;
        this.createdMs = createdMs;
        this.files = files;
        this.offsetOfMaxTimestampSoFar = baseOffset;
        TimestampOffset last = timeIndex.lastEntry();
        if (last.timestamp() >= 0) {
            maxTimestampSoFar = last.timestamp();
            offsetOfMaxTimestampSoFar = last.offset();
        }
        // A reopened segment continues the index cadence where it stopped, not from zero.
        bytesSinceLastIndexEntry = Math.max(0, log.sizeInBytes() - offsetIndex.lastEntry().position());
    }

    /**
     * Opens (or creates) the file set at {@code baseOffset}. The indexes of an active segment are
     * preallocated to {@code maxIndexSize}; a closed segment's stay at their trimmed size.
     */
    public static LogSegment open(Path dir, long baseOffset, int maxIndexSize, int indexIntervalBytes,
                                  long rollJitterMs, boolean active, Time time) throws IOException {
        return open(dir, baseOffset, maxIndexSize, indexIntervalBytes, rollJitterMs, active, time, FileLayer.REAL);
    }

    /** As {@link #open(Path, long, int, int, long, boolean, Time)}, the files reached through {@code files}. */
    public static LogSegment open(Path dir, long baseOffset, int maxIndexSize, int indexIntervalBytes,
                                  long rollJitterMs, boolean active, Time time, FileLayer files) throws IOException {
        return open(dir, baseOffset, "", maxIndexSize, indexIntervalBytes, rollJitterMs, active, time, files);
    }

    /**
     * Creates the file set at {@code baseOffset} with {@code suffix} after every name (the cleaner's
     * {@code .cleaned} segment), writable, its indexes preallocated to {@code maxIndexSize}.
     */
    public static LogSegment createWithSuffix(Path dir, long baseOffset, String suffix, int maxIndexSize,
                                              int indexIntervalBytes, Time time) throws IOException {
        return open(dir, baseOffset, suffix, maxIndexSize, indexIntervalBytes, 0, true, time, FileLayer.REAL);
    }

    private static LogSegment open(Path dir, long baseOffset, String suffix, int maxIndexSize, int indexIntervalBytes,
                                   long rollJitterMs, boolean active, Time time, FileLayer files) throws IOException {
        FileRecords log = FileRecords.open(suffixed(LogFileNames.logFile(dir, baseOffset), suffix), files);
        OffsetIndex offsetIndex = null;
        try {
            offsetIndex = new OffsetIndex(suffixed(LogFileNames.offsetIndexFile(dir, baseOffset), suffix), baseOffset,
                    maxIndexSize, active);
            TimeIndex timeIndex = new TimeIndex(suffixed(LogFileNames.timeIndexFile(dir, baseOffset), suffix), baseOffset,
                    maxIndexSize, active);
            TxnIndex txnIndex = new TxnIndex(suffixed(LogFileNames.txnIndexFile(dir, baseOffset), suffix));
            return new LogSegment(dir, baseOffset, log, offsetIndex, timeIndex, txnIndex, indexIntervalBytes,
                    rollJitterMs, time.milliseconds(), files);
        } catch (IOException | RuntimeException e) {
            if (offsetIndex != null) {
                offsetIndex.close();
            }
            log.close();
            throw e;
        }
    }

    private static Path suffixed(Path file, String suffix) {
        return suffix.isEmpty() ? file : file.resolveSibling(file.getFileName() + suffix);
    }

    /**
     * Bytes to preallocate for each index of a new, empty active segment: as many entries as
     * {@code segmentBytes} of data can produce at one entry per {@code indexIntervalBytes} (and at
     * least one batch header, 61 bytes, per entry), at most {@code segmentIndexBytes}.
     *
     * <p>Why not always segment.index.bytes (Kafka preallocates its 10 MiB default): the first write
     * fault in a freshly mapped, sparse index reads around the faulting page as far as the device's
     * read-ahead, into the page cache: with an 8 MiB read-ahead, 8 MiB of zeroed holes per 10 MiB
     * index, 2-15 ms on the append path, freed again by the trim at roll. For the 48 KiB a 16 MiB
     * segment can need, it is well under a millisecond (docs/performance.md). A segment that
     * outgrows its estimate (an oversized append, a raised segment.bytes) rolls when its index is
     * full, as any segment does.
     */
    public static int activeIndexBytes(int segmentBytes, int indexIntervalBytes, int segmentIndexBytes) {
        long entries = (long) segmentBytes / Math.max(indexIntervalBytes, RecordBatch.RECORDS_OFFSET) + 2;
        // The time index's entries are the larger (12 bytes) and it keeps a slot for the roll entry.
        return (int) Math.min(segmentIndexBytes, (entries + 1) * TimeIndex.ENTRY_SIZE);
    }

    public long baseOffset() {
        return baseOffset;
    }

    public int size() {
        return log.sizeInBytes();
    }

    public FileRecords log() {
        return log;
    }

    public OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    public TimeIndex timeIndex() {
        return timeIndex;
    }

    public TxnIndex txnIndex() {
        return txnIndex;
    }

    public long rollJitterMs() {
        return rollJitterMs;
    }

    /** Largest record timestamp in the segment (from its records, never from file times); -1 if empty. */
    public long maxTimestampSoFar() {
        return maxTimestampSoFar;
    }

    public long offsetOfMaxTimestampSoFar() {
        return offsetOfMaxTimestampSoFar;
    }

    public boolean canConvertToRelativeOffset(long offset) {
        long relative = offset - baseOffset;
        return relative >= 0 && relative <= Integer.MAX_VALUE;
    }

    /**
     * Appends batches whose offsets are already assigned. Index entries are added every
     * {@code index.interval.bytes}: (last offset of the batch, its position) and (max timestamp so
     * far, its offset). {@code batches} are {@code records}' batches, parsed once by the caller.
     */
    public void append(MemoryRecords records, List<RecordBatch> batches) throws IOException {
        if (records.sizeInBytes() == 0) {
            return;
        }
        int physicalPosition = log.sizeInBytes();
        if (physicalPosition == 0) {
            rollingBasedTimestamp = Optional.of(batches.get(0).maxTimestamp());
        }
        long lastOffset = batches.get(batches.size() - 1).lastOffset();
        if (!canConvertToRelativeOffset(lastOffset)) {
            throw new IllegalStateException("offset " + lastOffset + " does not fit in segment " + baseOffset);
        }
        log.append(records);
        for (RecordBatch batch : batches) {
            if (batch.maxTimestamp() > maxTimestampSoFar) {
                maxTimestampSoFar = batch.maxTimestamp();
                offsetOfMaxTimestampSoFar = batch.lastOffset();
            }
            // A request of several batches can fill an index part-way (the roll check ran before it):
            // the rest of it stays unindexed, and the next append rolls because the index is full.
            if (bytesSinceLastIndexEntry > indexIntervalBytes && !offsetIndex.isFull()) {
                offsetIndex.append(batch.lastOffset(), physicalPosition);
                if (!timeIndex.isFull()) {
                    timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, false);
                }
                bytesSinceLastIndexEntry = 0;
            }
            physicalPosition += batch.sizeInBytes();
            bytesSinceLastIndexEntry += batch.sizeInBytes();
        }
    }

    /**
     * Whether an append of {@code messagesSize} bytes with these offsets and timestamps must go to a
     * new segment. The time rule compares record timestamps (the incoming batch's max against the
     * first batch's), falling back to wall-clock age only for batches without timestamps; it never
     * rolls an empty segment, and nothing rolls without an append.
     */
    public RollReason shouldRoll(RollParams params) {
        int currentSize = size();
        if (currentSize > 0 && currentSize > params.segmentBytes() - params.messagesSize()) {
            return RollReason.SEGMENT_BYTES;
        }
        if (currentSize > 0 && timeWaitedForRoll(params.nowMs(), params.maxTimestampInMessages())
                > params.segmentMs() - rollJitterMs) {
            return RollReason.SEGMENT_MS;
        }
        if (offsetIndex.isFull()) {
            return RollReason.OFFSET_INDEX_FULL;
        }
        if (timeIndex.isFull()) {
            return RollReason.TIME_INDEX_FULL;
        }
        if (!canConvertToRelativeOffset(params.maxOffsetInMessages())) {
            return RollReason.OFFSET_OVERFLOW;
        }
        return RollReason.NONE;
    }

    private long timeWaitedForRoll(long nowMs, long messageTimestamp) {
        long first = firstBatchTimestamp();
        if (first >= 0 && messageTimestamp >= 0) {
            return messageTimestamp - first;
        }
        return nowMs - createdMs;
    }

    /** Max timestamp of the first batch (-1 when empty or unknown): when the segment's data started to age. */
    public long firstBatchTimestamp() {
        Optional<Long> known = rollingBasedTimestamp;
        if (known.isPresent()) {
            return known.get();
        }
        try {
            FileBatch first = log.batchAt(0, log.sizeInBytes());
            long ts = first == null ? RecordBatch.NO_TIMESTAMP : first.maxTimestamp();
            if (first != null) {
                rollingBasedTimestamp = Optional.of(ts);
            }
            return ts;
        } catch (IOException e) {
            return RecordBatch.NO_TIMESTAMP;
        }
    }

    /**
     * Finds the batch holding {@code offset}: the first with last offset >= offset, starting from the
     * offset index's nearest entry. Null when every batch in the segment is below it.
     */
    public FileBatch translateOffset(long offset) throws IOException {
        OffsetPosition entry = offsetIndex.lookup(offset);
        if (entry.position() == 0) {
            return log.searchForOffset(offset, 0);
        }
        try {
            FileBatch found = log.searchForOffset(offset, entry.position());
            // Batches follow each other without gaps, so the batch holding an offset at or above the
            // segment's first batch never starts above it. One that does (or an unreadable header)
            // means the index entry did not name a batch boundary: scan from the start instead of
            // returning the wrong records.
            if (found == null || found.baseOffset() <= offset || offset < firstBatchBaseOffset()) {
                return found;
            }
        } catch (TidelineException e) {
            // a damaged entry pointing into the middle of a batch: fall through to the full scan
        }
        LOGGER.warn("Offset index entry {} of {} does not name a batch boundary; scanning the segment instead",
                entry, offsetIndex.file());
        return log.searchForOffset(offset, 0);
    }

    private long firstBatchBaseOffset() throws IOException {
        FileBatch first = log.batchAt(0, log.sizeInBytes());
        return first == null ? baseOffset : first.baseOffset();
    }

    /**
     * Reads whole batches starting with the one that holds {@code startOffset}, at most
     * {@code maxSize} bytes and never at or past {@code maxPosition}; with {@code minOneMessage} the
     * first batch is returned whole even if larger than maxSize. Null if the segment has nothing at or
     * after startOffset.
     */
    public RecordsSlice read(long startOffset, int maxSize, int maxPosition, boolean minOneMessage) throws IOException {
        FileBatch first = translateOffset(startOffset);
        if (first == null || first.position() >= maxPosition) {
            return null;
        }
        int adjustedMax = minOneMessage ? Math.max(maxSize, first.sizeInBytes()) : maxSize;
        if (adjustedMax <= 0) {
            return RecordsSlice.empty();
        }
        int limit = Math.min(maxPosition - first.position(), adjustedMax);
        // Only whole batches are handed out: with minOneMessage the first always fits (maxPosition is a
        // batch boundary); without it a first batch larger than maxSize yields an empty read.
        int length = wholeBatchesWithin(first.position(), limit, maxPosition);
        return length == 0 ? RecordsSlice.empty() : log.slice(first.position(), length);
    }

    /**
     * Bytes from {@code start} covered by whole batches within {@code limit} bytes. The offset index
     * names batch starts every index.interval.bytes, so the walk over batch headers (one small read
     * each) starts from the last indexed batch before the limit instead of from {@code start}.
     */
    private int wholeBatchesWithin(int start, int limit, int maxPosition) throws IOException {
        int end = Math.min(maxPosition, start + limit);
        int indexed = offsetIndex.lookupByPosition(end).position();
        int position = indexed > start && indexed <= end ? indexed : start;
        FileBatch batch;
        while ((batch = log.batchAt(position, end)) != null) {
            position += batch.sizeInBytes();
        }
        return position - start;
    }

    /**
     * The offset after the last batch, found by scanning from the last index entry (cheap: at most
     * index.interval.bytes of headers), or the base offset when the segment is empty.
     */
    public long readNextOffset() throws IOException {
        int position = offsetIndex.lastEntry().position();
        int end = log.sizeInBytes();
        long next = baseOffset;
        FileBatch batch;
        while ((batch = log.batchAt(position, end)) != null) {
            next = batch.lastOffset() + 1;
            position += batch.sizeInBytes();
        }
        return next;
    }

    /**
     * The first offset whose timestamp is >= {@code timestamp}, at or after {@code startingOffset}:
     * time index for the starting point, then batches, then the records of the matching batch.
     */
    public Optional<TimestampAndOffset> findOffsetByTimestamp(long timestamp, long startingOffset) throws IOException {
        TimestampOffset indexEntry = timeIndex.lookup(timestamp);
        OffsetPosition position = offsetIndex.lookup(Math.max(indexEntry.offset(), startingOffset));
        int end = log.sizeInBytes();
        int pos = position.position();
        FileBatch batch;
        while ((batch = log.batchAt(pos, end)) != null) {
            if (batch.maxTimestamp() >= timestamp) {
                for (Record record : batch.load().records()) {
                    if (record.timestamp() >= timestamp && record.offset() >= startingOffset) {
                        return Optional.of(new TimestampAndOffset(record.timestamp(), record.offset(),
                                batch.partitionLeaderEpoch()));
                    }
                }
            }
            pos += batch.sizeInBytes();
        }
        return Optional.empty();
    }

    /**
     * Validates every batch (length, magic, CRC, increasing offsets) from the start, truncates at the
     * first bad one and rebuilds the indexes from what stays. Returns the bytes truncated.
     */
    public int recover() throws IOException {
        offsetIndex.reset();
        timeIndex.reset();
        // A closed segment's indexes were trimmed to their entries; give the rebuild room (the time
        // index keeps a slot in reserve, so the same entries would not fit again) and trim below. The
        // room is what this segment's bytes can index, not segment.index.bytes: index space is written
        // when it is allocated (docs/behaviours.md B142), and a recovery may run on a nearly full disk.
        int room = activeIndexBytes(Math.max(log.sizeInBytes(), 1), indexIntervalBytes, offsetIndex.maxIndexSize());
        offsetIndex.resize(room);
        timeIndex.resize(room);
        txnIndex.truncateTo(baseOffset);
        maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = baseOffset;
        rollingBasedTimestamp = Optional.empty();
        int end = log.sizeInBytes();
        int validBytes = 0;
        int lastIndexEntry = 0;
        long expectedAtLeast = baseOffset;
        while (true) {
            FileBatch header;
            RecordBatch batch;
            try {
                header = log.batchAt(validBytes, end);
                if (header == null) {
                    break;
                }
                batch = header.load();
                batch.ensureValid();
            } catch (TidelineException e) {
                break;
            }
            // Offsets must increase and fit the segment; max.message.bytes is not applied here because
            // a topic's limit may have been lowered after the data was written.
            if (batch.baseOffset() < expectedAtLeast || !canConvertToRelativeOffset(batch.lastOffset())) {
                break;
            }
            if (batch.maxTimestamp() > maxTimestampSoFar) {
                maxTimestampSoFar = batch.maxTimestamp();
                offsetOfMaxTimestampSoFar = batch.lastOffset();
            }
            // An index that fills up during a rebuild stays sparse at its end: lookups scan a little
            // further, which is correct, whereas the segment's data may have been indexed at another
            // cadence before (the topic's index.interval.bytes may have changed since) and need more entries than fit.
            if (validBytes - lastIndexEntry > indexIntervalBytes && !offsetIndex.isFull()) {
                offsetIndex.append(batch.lastOffset(), validBytes);
                if (!timeIndex.isFull()) {
                    timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, false);
                }
                lastIndexEntry = validBytes;
            }
            if (validBytes == 0) {
                rollingBasedTimestamp = Optional.of(batch.maxTimestamp());
            }
            expectedAtLeast = batch.lastOffset() + 1;
            validBytes += batch.sizeInBytes();
        }
        int truncated = log.truncateTo(validBytes);
        if (maxTimestampSoFar >= 0) {
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, true);
        }
        offsetIndex.trimToValidSize(); // the loader resizes the active segment's indexes afterwards
        timeIndex.trimToValidSize();
        bytesSinceLastIndexEntry = validBytes - lastIndexEntry;
        return truncated;
    }

    /**
     * Checks the indexes against the log without reading it all: entries within the file and below
     * the next offset, and no damaged tail. False means "rebuild from the log".
     */
    public boolean indexesLookSane(long nextOffset) throws IOException {
        if (offsetIndex.invalidTail() || timeIndex.invalidTail()) {
            return false;
        }
        OffsetPosition last = offsetIndex.lastEntry();
        if (offsetIndex.entries() > 0) {
            if (last.position() >= size() || last.offset() >= nextOffset) {
                return false;
            }
            // The last entry must name a batch boundary whose batch ends at the entry's offset.
            FileBatch batch = log.batchAt(last.position(), size());
            if (batch == null || batch.lastOffset() != last.offset()) {
                return false;
            }
        }
        TimestampOffset lastTime = timeIndex.lastEntry();
        return timeIndex.entries() == 0 || lastTime.offset() < nextOffset;
    }

    /** Removes everything from {@code offset} on; returns the bytes removed. */
    public int truncateTo(long offset) throws IOException {
        FileBatch batch = translateOffset(offset);
        if (batch == null) {
            return 0;
        }
        // A batch is kept or dropped whole; truncation points are batch boundaries.
        int position = batch.baseOffset() >= offset ? batch.position() : batch.position() + batch.sizeInBytes();
        offsetIndex.truncateToPosition(position);
        timeIndex.truncateTo(offset);
        txnIndex.truncateTo(offset);
        int removed = log.truncateTo(position);
        if (log.sizeInBytes() == 0) {
            rollingBasedTimestamp = Optional.empty();
        }
        // Recompute the max timestamp from the time index (entries at or past offset are gone).
        TimestampOffset last = timeIndex.lastEntry();
        maxTimestampSoFar = last.timestamp();
        offsetOfMaxTimestampSoFar = last.timestamp() >= 0 ? last.offset() : baseOffset;
        bytesSinceLastIndexEntry = log.sizeInBytes() - offsetIndex.lastEntry().position();
        return removed;
    }

    /**
     * Called on roll: the final time-index entry (the segment's max timestamp) and trimmed indexes.
     * No fsync: the log flushes the closed segment on its scheduler after the roll (as Kafka's
     * UnifiedLog.roll does), so the append that rolled does not wait for the disk.
     */
    public void onBecomeInactiveSegment() throws IOException {
        if (maxTimestampSoFar >= 0) {
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, true);
        }
        offsetIndex.trimToValidSize();
        timeIndex.trimToValidSize();
    }

    /** Makes the indexes of the (new) active segment full-size again after a reopen. */
    public void resizeIndexes(int maxIndexSize) throws IOException {
        offsetIndex.resize(maxIndexSize);
        timeIndex.resize(maxIndexSize);
    }

    /**
     * Fsyncs the log and its indexes. Safe while another thread deletes, truncates or closes the
     * segment (the flush after a roll runs on the scheduler): closed files are skipped. Returns false
     * when the log file was already released, i.e. the segment is gone and nothing was flushed.
     */
    public boolean flush() throws IOException {
        if (!log.flush()) {
            return false;
        }
        offsetIndex.flush();
        files.indexFlushed(offsetIndex.file());
        timeIndex.flush();
        files.indexFlushed(timeIndex.file());
        txnIndex.flush();
        return true;
    }

    /** Renames every file of the set, e.g. from "" to ".deleted", then fsyncs the directory once. */
    public void changeFileSuffixes(String oldSuffix, String newSuffix) throws IOException {
        changeFileSuffixes(oldSuffix, newSuffix, true);
    }

    /**
     * Renames every file of the set; with {@code fsyncDirectory} false the caller fsyncs the directory
     * after renaming a group of segments (one fsync per retention pass instead of one per file).
     */
    public void changeFileSuffixes(String oldSuffix, String newSuffix, boolean fsyncDirectory) throws IOException {
        log.renameTo(LogFileNames.withSuffix(log.file(), oldSuffix, newSuffix));
        offsetIndex.renameTo(LogFileNames.withSuffix(offsetIndex.file(), oldSuffix, newSuffix));
        timeIndex.renameTo(LogFileNames.withSuffix(timeIndex.file(), oldSuffix, newSuffix));
        txnIndex.renameTo(LogFileNames.withSuffix(txnIndex.file(), oldSuffix, newSuffix));
        if (fsyncDirectory) {
            FileUtils.fsyncDirectory(log.file().toAbsolutePath().getParent());
        }
    }

    public boolean hasSuffix(String suffix) {
        return log.file().getFileName().toString().endsWith(suffix);
    }

    /** Closes the segment: indexes unmapped (and trimmed), the log's own channel reference released. */
    @Override
    public void close() {
        try {
            // The segment's max timestamp is reloaded from the time index's last entry on a clean open;
            // without this entry a segment closed while active would come back with none (or an older
            // one) and time retention would delete it early.
            if (maxTimestampSoFar >= 0) {
                timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, true);
            }
            timeIndex.close();
            offsetIndex.close();
            txnIndex.close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            log.close();
        }
    }

    /** Releases files as a crash would: no flush, no index trimming (tests and benchmarks). */
    public void abandon() {
        offsetIndex.abandon();
        timeIndex.abandon();
        try {
            txnIndex.close();
        } catch (IOException ignored) {
            // nothing to keep: this simulates losing the process
        }
        log.close();
    }

    /**
     * Unmaps and unlinks every file of the set. The log channel stays open for readers that still
     * hold a slice; the disk blocks are freed when they close it.
     */
    public void closeAndDeleteFiles() throws IOException {
        offsetIndex.closeAndDelete();
        timeIndex.closeAndDelete();
        txnIndex.closeAndDelete();
        log.close();
        Files.deleteIfExists(log.file());
    }

    public Path dir() {
        return dir;
    }

    @Override
    public String toString() {
        return "LogSegment(baseOffset=" + baseOffset + ", size=" + size() + ", file=" + log.file().getFileName() + ")";
    }

    public record TimestampAndOffset(long timestamp, long offset, int leaderEpoch) {
    }

    public record RollParams(int segmentBytes, long segmentMs, long maxTimestampInMessages,
                             long maxOffsetInMessages, int messagesSize, long nowMs) {
    }

    public enum RollReason {
        NONE, SEGMENT_BYTES, SEGMENT_MS, OFFSET_INDEX_FULL, TIME_INDEX_FULL, OFFSET_OVERFLOW
    }
}
