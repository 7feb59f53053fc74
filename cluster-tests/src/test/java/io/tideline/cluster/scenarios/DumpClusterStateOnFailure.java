package io.tideline.cluster.scenarios;

import io.tideline.cluster.harness.ClusterHarness;
import java.lang.reflect.Field;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Prints {@link ClusterHarness#dumpState()} of every harness field of a failed test, after the test method
 * and before its {@code @AfterEach} closes the cluster, so the state that broke it is still there to read.
 */
public final class DumpClusterStateOnFailure implements AfterTestExecutionCallback {
    @Override
    public void afterTestExecution(ExtensionContext context) throws IllegalAccessException {
        if (context.getExecutionException().isEmpty()) {
            return;
        }
        Object test = context.getRequiredTestInstance();
        for (Field field : test.getClass().getDeclaredFields()) {
            if (ClusterHarness.class.isAssignableFrom(field.getType())) {
                field.setAccessible(true);
                ClusterHarness cluster = (ClusterHarness) field.get(test);
                if (cluster != null) {
                    System.err.println(context.getDisplayName() + " failed; " + cluster.dumpState());
                }
            }
        }
    }
}
