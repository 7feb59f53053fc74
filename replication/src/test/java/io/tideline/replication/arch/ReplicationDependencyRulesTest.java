package io.tideline.replication.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Dependencies point one way: store <- replication <- node. Replication never reaches up. */
class ReplicationDependencyRulesTest {

    @Test
    void replicationDoesNotDependOnTheNodeOrConsensus() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.tideline.replication");
        noClasses().that().resideInAPackage("io.tideline.replication..")
                .should().dependOnClassesThat().resideInAnyPackage("io.tideline.node..", "org.apache.ratis..")
                .check(classes);
    }
}
