package io.tideline.cluster.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

class HistoryCheckerPropertiesTest {

    @Property(tries = 300)
    void historyOfASimulatedCorrectLogAlwaysPasses(@ForAll long seed) {
        SimulatedRun run = new SimulatedRun(seed);
        List<HistoryEvent> events = run.run();

        CheckResult result = HistoryChecker.lenient().check(events);

        assertTrue(result.valid(), result::report);
        assertEquals(run.acknowledged, result.acknowledged());
        assertEquals(run.consumed, result.consumed());
        assertEquals(0, result.lost());
        // The generator must reach the cases the checks excuse, or the property proves little.
        boolean reset = events.stream().anyMatch(e -> e instanceof HistoryEvent.OffsetReset);
        Statistics.label("consumer told a log start offset").collect(reset);
        Statistics.label("deleted by retention").collect(result.deletedByRetention() > 0);
        Statistics.label("duplicates").collect(result.duplicates() > 0);
        Statistics.label("unknown outcomes").collect(result.unknownOutcomes() > 0);
        Statistics.label("consumer told a log start offset").coverage(c -> c.check(true).percentage(p -> p > 20));
        Statistics.label("deleted by retention").coverage(c -> c.check(true).percentage(p -> p > 20));
        Statistics.label("duplicates").coverage(c -> c.check(true).percentage(p -> p > 10));
        Statistics.label("unknown outcomes").coverage(c -> c.check(true).percentage(p -> p > 20));
    }

    @Property(tries = 500)
    void oneInjectedFaultIsAlwaysCaught(@ForAll long seed, @ForAll HistoryFaults fault) {
        List<HistoryEvent> events = new ArrayList<>(new SimulatedRun(seed).run());
        fault.inject(events, new Random(seed));

        CheckResult result = HistoryChecker.lenient().check(events);

        assertFalse(result.violations(fault.expected).isEmpty(), () -> fault + " not caught:\n" + result.report());
    }
}
