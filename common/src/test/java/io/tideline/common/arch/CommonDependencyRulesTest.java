package io.tideline.common.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering inside common, checked on the compiled classes: the record format sits on time, config and errors,
 * never the other way round, and no package cycle forms.
 */
class CommonDependencyRulesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.tideline");
    }

    @Test
    void timeConfigAndErrorsKnowNothingOfTheRecordFormat() {
        noClasses().that().resideInAPackage("io.tideline.common..")
                .should().dependOnClassesThat().resideInAPackage("io.tideline.store..")
                .check(classes);
    }

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.tideline.(**)").should().beFreeOfCycles().check(classes);
    }
}
