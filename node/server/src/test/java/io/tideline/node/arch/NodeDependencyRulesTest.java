package io.tideline.node.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

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

    @ArchTest
    static final ArchRule noPackageCycles = slices()
            .matching("io.tideline.node.(**)")
            .should().beFreeOfCycles()
            .allowEmptyShould(true);

    @ArchTest
    static final ArchRule serviceLayerKnowsNoListener = noClasses()
            .that().resideInAPackage("io.tideline.node.service..")
            .should().dependOnClassesThat().resideInAnyPackage("io.tideline.node.kafka..", "io.tideline.node.api..",
                    "io.grpc..", "io.tideline.proto.admin..", "io.tideline.proto.client..", "org.apache.kafka..")
            .because("the admin operations are shared by the gRPC and the Kafka listener, so they take plain "
                    + "arguments and return plain results; each listener translates its own messages");

    @ArchTest
    static final ArchRule kafkaListenerIsNoClientOfTheGrpcListener = noClasses()
            .that().resideInAPackage("io.tideline.node.kafka..")
            .should().dependOnClassesThat().resideInAnyPackage("io.tideline.node.api..", "io.grpc..",
                    "io.tideline.proto.admin..", "io.tideline.proto.client..")
            .because("the Kafka listener and the gRPC listener are siblings over io.tideline.node.service; one "
                    + "calling through the other translates every request twice");

    @ArchTest
    static final ArchRule grpcListenerIsNoClientOfTheKafkaListener = noClasses()
            .that().resideInAPackage("io.tideline.node.api..")
            .should().dependOnClassesThat().resideInAPackage("io.tideline.node.kafka..")
            .because("the gRPC listener and the Kafka listener are siblings over io.tideline.node.service");
}
