package io.tideline.store.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store's layering, checked on the compiled classes: dependencies point one way
 * (common <- record, index <- segment <- retention, log <- manager <- tools) and the store knows
 * nothing of networking, consensus or brokers.
 */
class DependencyRulesTest {
    private static final Pattern TEST_JAR = Pattern.compile(".*-tests\\.jar.*");
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // common's test-jar (a test dependency of the store) holds test classes that
                // DO_NOT_INCLUDE_TESTS, matching test-classes directories only, lets through.
                .withImportOption(location -> !location.matches(TEST_JAR))
                .importPackages("io.tideline");
    }

    @Test
    void commonDependsOnNothingOfTheStore() {
        noClasses().that().resideInAPackage("io.tideline.common..")
                .should().dependOnClassesThat().resideInAPackage("io.tideline.store..")
                .check(classes);
    }

    /**
     * One slice per package at every level (store.log and a store.log.x would be two), so a cycle between a
     * package and its subpackage fails too. A rule that finds no classes fails (ArchUnit's failOnEmptyShould).
     */
    @Test
    void storePackagesHaveNoCycles() {
        slices().matching("io.tideline.(store..)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void lowerLayersDoNotReachUp() {
        noClasses().that().resideInAnyPackage("io.tideline.store.record..", "io.tideline.store.index..",
                        "io.tideline.store.segment..", "io.tideline.store.retention..", "io.tideline.store.log..")
                .should().dependOnClassesThat().resideInAnyPackage("io.tideline.store.manager..", "io.tideline.store.tools..")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.tideline.store.record..", "io.tideline.store.index..")
                .should().dependOnClassesThat().resideInAnyPackage("io.tideline.store.segment..", "io.tideline.store.log..")
                .check(classes);
    }

    @Test
    void storeKnowsNothingOfNetworkConsensusOrBrokers() {
        noClasses().that().resideInAPackage("io.tideline..")
                .should().dependOnClassesThat().resideInAnyPackage("io.grpc..", "org.apache.ratis..",
                        "io.tideline.replication..", "io.tideline.node..", "org.apache.kafka..")
                .check(classes);
    }
}
