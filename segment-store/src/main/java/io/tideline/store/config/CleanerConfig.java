package io.tideline.store.config;

/**
 * The log cleaner's broker settings (Kafka's log.cleaner.* keys), validated by {@link StoreConfig}.
 *
 * @param threads cleaner threads; 0 disables cleaning
 * @param dedupeBufferSize heap bytes of the dedupe maps of all threads together
 * @param ioBufferSize bytes each thread reads and writes segments in
 * @param ioBufferLoadFactor how full a dedupe map may get
 * @param maxIoBytesPerSecond read plus write bytes per second of all threads together
 * @param backoffMs sleep of a thread that found nothing to clean
 */
public record CleanerConfig(int threads, long dedupeBufferSize, int ioBufferSize, double ioBufferLoadFactor,
        double maxIoBytesPerSecond, long backoffMs) {

    /** Kafka's defaults. */
    public static final CleanerConfig DEFAULT = new CleanerConfig(StoreConfig.LOG_CLEANER_THREADS_DEFAULT,
            StoreConfig.LOG_CLEANER_DEDUPE_BUFFER_SIZE_DEFAULT, StoreConfig.LOG_CLEANER_IO_BUFFER_SIZE_DEFAULT,
            StoreConfig.LOG_CLEANER_IO_BUFFER_LOAD_FACTOR_DEFAULT,
            StoreConfig.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_DEFAULT, StoreConfig.LOG_CLEANER_BACKOFF_MS_DEFAULT);
}
