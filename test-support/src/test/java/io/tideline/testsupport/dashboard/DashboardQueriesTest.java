package io.tideline.testsupport.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DashboardQueriesTest {

    @Test
    void functionsMatchersRangesAndGroupingAreNotMetricNames() {
        assertEquals(Set.of("kafka_server_replicamanager_isrshrinks_total"), DashboardQueries.metricNames(
                "sum by (instance) (rate(kafka_server_replicamanager_isrshrinks_total{job=~\"$job\"}[5m]))"));
        assertEquals(Set.of("a_sum", "a_count"), DashboardQueries.metricNames(
                "sum without (gc) (rate(a_sum[5m])) / on (instance) group_left (x) sum(rate(a_count[1h:1m]))"));
    }

    @Test
    void labelValuesInMatchersAndStringsAreNotMetricNames() {
        assertEquals(Set.of("m"), DashboardQueries.metricNames("m{topic=\"x{y}\",a!~'b|c', d=`e\"f`} * 100"));
        assertEquals(Set.of("up", "m"), DashboardQueries.metricNames("count(m == 1) or vector(0) and bool up offset 5m"));
    }

    @Test
    void numbersAndExponentsAreNotMetricNames() {
        assertEquals(Set.of("m"), DashboardQueries.metricNames("m / 1e9 + 0x1f - 2.5e-3"));
    }

    @Test
    void labelValuesVariableQueryNamesItsFirstArgument() {
        assertEquals(Set.of("kafka_server_replicamanager_partitioncount"),
                DashboardQueries.metricNames("label_values(kafka_server_replicamanager_partitioncount, job)"));
    }

    @Test
    void exprAndDefinitionStringsAreReadWithTheirEscapes() {
        String json = "{\"panels\":[{\"targets\":[{\"expr\": \"sum(m{job=~\\\"$job\\\"}) \\u002b n\"}],"
                + "\"description\":\"not \\\"expr\\\": \\\"x\\\"\"}],"
                + "\"templating\":{\"list\":[{\"definition\":\"label_values(v, job)\"}]}}";
        assertEquals(List.of("sum(m{job=~\"$job\"}) + n", "label_values(v, job)"), DashboardQueries.queries(json));
        assertEquals(Set.of("m", "n", "v"), DashboardQueries.metricNamesOfDashboard(json));
    }
}
