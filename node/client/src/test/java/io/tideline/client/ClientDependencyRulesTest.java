package io.tideline.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The client library stands alone: it talks to brokers only through the wire protocol, so it may use
 * the generated protocol classes, the shared error codes, clock and config definitions, and the record
 * batch codec (the wire format), but nothing of the broker, the store or replication. That keeps it
 * shippable without the server and honest about the protocol.
 */
@AnalyzeClasses(packages = "io.tideline.client", importOptions = ImportOption.DoNotIncludeTests.class)
class ClientDependencyRulesTest {

    @ArchTest
    static final ArchRule clientUsesOnlyTheProtocolAndSharedClasses = classes()
            .that().resideInAPackage("io.tideline.client..")
            .should().onlyDependOnClassesThat().resideInAnyPackage(
                    "io.tideline.client..", "io.tideline.proto..", "io.tideline.common..",
                    "io.tideline.store.record..", "io.grpc..", "com.google.protobuf..", "org.slf4j..",
                    "com.codahale.metrics..", "java..")
            .because("the client library must not depend on server classes: brokers are reached through the "
                    + "gRPC protocol only");

    @ArchTest
    static final ArchRule noServerPackages = noClasses()
            .that().resideInAPackage("io.tideline.client..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.tideline.node..", "io.tideline.replication..", "org.apache.ratis..")
            .because("the client library must not depend on server classes");

    @ArchTest
    static final ArchRule internalsDoNotDependOnTheApi = noClasses()
            .that().resideInAPackage("io.tideline.client.internals..")
            .should().dependOnClassesThat().resideInAPackage("io.tideline.client")
            .because("the internals are leaf utilities of the API package; a dependency back would be a cycle");

    /**
     * One slice per package at every level, io.tideline.client itself included: "client.(**)" would leave the
     * API package out of every slice. A rule that finds no classes fails (ArchUnit's failOnEmptyShould).
     */
    @ArchTest
    static final ArchRule packagesHaveNoCycles = slices().matching("io.tideline.(client..)").should().beFreeOfCycles();
}
