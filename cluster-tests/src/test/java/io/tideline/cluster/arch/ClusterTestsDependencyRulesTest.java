package io.tideline.cluster.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The cluster-test harness keeps its packages free of cycles, as every module does (docs/architecture.md): checked on this module's
 * own compiled main classes, every package level a slice of its own.
 */
class ClusterTestsDependencyRulesTest {
    @Test
    void packagesHaveNoCycles() {
        JavaClasses classes = new ClassFileImporter().importPath(Path.of("target", "classes"));
        slices().matching("io.tideline.(cluster..)").should().beFreeOfCycles().check(classes);
    }
}
