package io.tideline.tools.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The command-line tools are clients: they reach the cluster only through the client library, like any
 * application would, so what they can do is what the client API offers.
 */
@AnalyzeClasses(packages = "io.tideline.tools", importOptions = ImportOption.DoNotIncludeTests.class)
class CliDependencyRulesTest {

    @ArchTest
    static final ArchRule toolsUseOnlyTheClientLibrary = classes()
            .that().resideInAPackage("io.tideline.tools.cli..")
            .should().onlyDependOnClassesThat().resideInAnyPackage(
                    "io.tideline.tools.cli..", "io.tideline.client", "io.tideline.common..", "picocli..",
                    "com.google.gson..", "java..")
            .because("the tools must work against a cluster through the public client API, never server classes");

    /**
     * One slice per package at every level under io.tideline.tools, the root included. A rule that finds no
     * classes fails (ArchUnit's failOnEmptyShould).
     */
    @ArchTest
    static final ArchRule packagesHaveNoCycles = slices().matching("io.tideline.(tools..)").should().beFreeOfCycles();
}
