package io.tideline.cluster.history;

/** One checked property of a history. Implementations are stateless. */
interface Check {

    void run(HistoryIndex history, CheckResult.Builder result);
}
