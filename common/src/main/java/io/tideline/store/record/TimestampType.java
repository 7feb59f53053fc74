package io.tideline.store.record;

/** Which clock a batch's timestamps come from (attribute bit 3 of a v2 batch). */
public enum TimestampType {
    CREATE_TIME,
    LOG_APPEND_TIME
}
