package io.tideline.replication.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Dependencies point one way: store <- replication <- node. Replication never reaches up. */
class ReplicationDependencyRulesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.tideline.replication");
    }

    @Test
    void replicationDoesNotDependOnTheNodeOrConsensus() {
        noClasses().that().resideInAPackage("io.tideline.replication..")
                .should().dependOnClassesThat().resideInAnyPackage("io.tideline.node..", "org.apache.ratis..")
                .check(classes);
    }

    /**
     * One slice per package at every level, the root package (ReplicationConfig) included: "replication.(**)"
     * would leave the root out of every slice, so a cycle through it would pass. A rule that finds no classes
     * fails (ArchUnit's failOnEmptyShould), so a wrong import cannot make it pass either.
     */
    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.tideline.(replication..)").should().beFreeOfCycles().check(classes);
    }
}
