package io.tideline.node.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.tideline.node.kafka.KafkaServices;

/**
 * The node's layering, enforced (Kafka keeps an import-control file for the same purpose). The image is
 * the shared model, so it may not know who feeds or reads it; the controller logic is a pure function of
 * (image, command) so that the property tests can drive it without a quorum.
 */
@AnalyzeClasses(packages = "io.tideline.node", importOptions = ImportOption.DoNotIncludeTests.class)
class NodeDependencyRulesTest {

    @ArchTest
    static final ArchRule imageDependsOnNoFeederOrReader = noClasses()
            .that().resideInAPackage("io.tideline.node.metadata..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.tideline.node.quorum..", "io.tideline.node.controller.client..", "io.tideline.node.broker..")
            .because("the metadata image is the model every side shares; a dependency from it to the quorum, "
                    + "the controller client or the broker would tie the model to one of its users");

    // Only the package itself: io.tideline.node.controller.client talks to Ratis by design.
    @ArchTest
    static final ArchRule controllerLogicIsFreeOfRatis = noClasses()
            .that().resideInAPackage("io.tideline.node.controller")
            .should().dependOnClassesThat().resideInAPackage("org.apache.ratis..")
            .because("the controller logic must stay a pure, deterministic function that tests can run "
                    + "without a Raft quorum; the Ratis state machine in io.tideline.node.quorum wraps it");

    // KafkaServices is the Kafka listener's composition root: it builds the APIs of the packages under
    // io.tideline.node.kafka (data, groups, admin, ...), which implement that package's KafkaApi contract. Its
    // construction calls are the one dependency allowed to point back down; any other is still a cycle.
    @ArchTest
    static final ArchRule noPackageCycles = slices()
            .matching("io.tideline.node.(**)")
            .should().beFreeOfCycles()
            .ignoreDependency(JavaClass.Predicates.equivalentTo(KafkaServices.class),
                    JavaClass.Predicates.resideInAPackage("io.tideline.node.kafka.*.."))
            .allowEmptyShould(true);
}
