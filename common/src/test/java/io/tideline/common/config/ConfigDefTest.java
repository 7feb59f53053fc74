package io.tideline.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigDef.Importance;
import io.tideline.common.config.ConfigDef.Type;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConfigDefTest {

    private static ConfigDef sample() {
        return new ConfigDef()
                .define("a.int", Type.INT, 10, Range.atLeast(0), Importance.HIGH, "An int.")
                .define("a.long", Type.LONG, 20L, Range.between(-1, 100), Importance.MEDIUM, "A long.")
                .define("a.double", Type.DOUBLE, 0.5, Range.between(0.0, 1.0), Importance.LOW, "A double.")
                .define("a.bool", Type.BOOLEAN, false, Importance.LOW, "A boolean.")
                .define("a.string", Type.STRING, "x", ValidString.in("x", "y"), Importance.LOW, "A string.")
                .define("a.list", Type.LIST, "p,q", Importance.LOW, "A list.")
                .define("an.optional", Type.LONG, null, Range.atLeast(1), Importance.LOW, "Unset unless given.");
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static ConfigException refused(ConfigDef def, Map<String, ?> props) {
        return assertThrows(ConfigException.class, () -> def.parse(props));
    }

    @Test
    void absentKeysTakeTheirParsedDefaults() {
        Map<String, Object> v = sample().parse(Map.of());
        assertEquals(10, v.get("a.int"));
        assertEquals(20L, v.get("a.long"));
        assertEquals(0.5, v.get("a.double"));
        assertEquals(false, v.get("a.bool"));
        assertEquals("x", v.get("a.string"));
        assertEquals(List.of("p", "q"), v.get("a.list"));
        assertTrue(v.containsKey("an.optional"));
        assertNull(v.get("an.optional"));
    }

    @Test
    void stringValuesAreTrimmedAndParsed() {
        Map<String, Object> v = sample().parse(map(
                "a.int", " 42 ", "a.long", "\t-1\n", "a.double", " 0.25", "a.bool", " TRUE ",
                "a.string", " y ", "a.list", " a , b,c ", "an.optional", "7"));
        assertEquals(42, v.get("a.int"));
        assertEquals(-1L, v.get("a.long"));
        assertEquals(0.25, v.get("a.double"));
        assertEquals(true, v.get("a.bool"));
        assertEquals("y", v.get("a.string"));
        assertEquals(List.of("a", "b", "c"), v.get("a.list"));
        assertEquals(7L, v.get("an.optional"));
    }

    @Test
    void typedValuesAreAcceptedAndWidenedOrNarrowedExactly() {
        Map<String, Object> v = sample().parse(map(
                "a.int", 42L, "a.long", 5, "a.double", 1, "a.bool", Boolean.TRUE,
                "a.list", List.of(" a", "b "), "an.optional", new BigDecimal("3")));
        assertEquals(Integer.valueOf(42), v.get("a.int"));
        assertEquals(Long.valueOf(5), v.get("a.long"));
        assertEquals(Double.valueOf(1.0), v.get("a.double"));
        assertEquals(Boolean.TRUE, v.get("a.bool"));
        assertEquals(List.of("a", "b"), v.get("a.list"));
        assertEquals(Long.valueOf(3), v.get("an.optional"));
        assertEquals(7, sample().parse(map("a.int", 7.0d)).get("a.int"));
    }

    @Test
    void nullValueCountsAsAbsent() {
        assertEquals(10, sample().parse(map("a.int", null)).get("a.int"));
    }

    @Test
    void emptyStringIsAnEmptyList() {
        assertEquals(List.of(), sample().parse(map("a.list", "  ")).get("a.list"));
    }

    @Test
    void unknownKeysAreIgnoredByParseAndReportedSeparately() {
        ConfigDef def = sample();
        Map<String, Object> props = map("a.int", "1", "zzz", "1", "aaa.typo", "2");
        Map<String, Object> v = def.parse(props);
        assertFalse(v.containsKey("zzz"));
        assertEquals(def.names(), v.keySet());
        assertEquals(List.of("aaa.typo", "zzz"), List.copyOf(def.unknownKeys(props)));
    }

    @Test
    void parsedValuesAreUnmodifiableAndInDefinitionOrder() {
        Map<String, Object> v = sample().parse(Map.of());
        assertEquals(List.of("a.int", "a.long", "a.double", "a.bool", "a.string", "a.list", "an.optional"),
                List.copyOf(v.keySet()));
        assertThrows(UnsupportedOperationException.class, () -> v.put("a.int", 1));
    }

    @Test
    void nonNumericStringForIntNamesKeyValueAndReason() {
        ConfigException e = refused(sample(), map("a.int", "abc"));
        assertEquals("Invalid value abc for configuration a.int: Expected a 32-bit integer", e.getMessage());
        assertEquals("a.int", e.key());
    }

    @Test
    void wrongTypedValuesAreRefused() {
        assertTrue(refused(sample(), map("a.int", Boolean.TRUE)).getMessage()
                .contains("Expected a 32-bit integer, got Boolean"));
        assertEquals("a.int", refused(sample(), map("a.int", 1.5d)).key());
        assertEquals("a.int", refused(sample(), map("a.int", 3_000_000_000L)).key());
        assertEquals("a.int", refused(sample(), map("a.int", "3000000000")).key());
        assertEquals("a.long", refused(sample(), map("a.long", "1.0")).key());
        assertEquals("a.long", refused(sample(), map("a.long", "99999999999999999999")).key());
        assertEquals("a.double", refused(sample(), map("a.double", "half")).key());
        assertEquals("a.bool", refused(sample(), map("a.bool", "yes")).key());
        assertEquals("a.bool", refused(sample(), map("a.bool", 1)).key());
        assertEquals("a.string", refused(sample(), map("a.string", 5)).key());
        assertEquals("a.list", refused(sample(), map("a.list", List.of("a", 1))).key());
        assertEquals("a.list", refused(sample(), map("a.list", 5)).key());
    }

    @Test
    void validatorsRunOnSuppliedValues() {
        assertEquals("Invalid value -5 for configuration a.int: Value must be at least 0",
                refused(sample(), map("a.int", "-5")).getMessage());
        assertEquals("Invalid value 101 for configuration a.long: Value must be between -1 and 100",
                refused(sample(), map("a.long", 101)).getMessage());
        assertEquals("Invalid value 1.5 for configuration a.double: Value must be between 0.0 and 1.0",
                refused(sample(), map("a.double", "1.5")).getMessage());
        assertEquals("Invalid value z for configuration a.string: String must be one of: x, y",
                refused(sample(), map("a.string", "z")).getMessage());
        assertEquals("an.optional", refused(sample(), map("an.optional", 0)).key());
    }

    @Test
    void missingRequiredKeyIsNamed() {
        ConfigDef def = new ConfigDef()
                .define("needed", Type.STRING, Importance.HIGH, "Required.")
                .define("dirs", Type.LIST, ConfigDef.NO_DEFAULT, ValidList.nonEmpty(), Importance.HIGH, "Dirs.");
        ConfigException e = assertThrows(ConfigException.class, () -> def.parse(Map.of("dirs", "d")));
        assertEquals("needed", e.key());
        assertEquals("Missing required configuration \"needed\" which has no default value.", e.getMessage());
        assertEquals("dirs", assertThrows(ConfigException.class, () -> def.parse(Map.of("needed", "n"))).key());
        assertEquals("d", ((List<?>) def.parse(Map.of("needed", "n", "dirs", "d")).get("dirs")).get(0));
    }

    @Test
    void configExceptionCarriesInvalidConfigError() {
        ConfigException e = refused(sample(), map("a.int", "-1"));
        assertTrue(e instanceof TidelineException);
        assertEquals(Errors.INVALID_CONFIG, e.error());
        assertEquals(Errors.INVALID_CONFIG, TidelineException.errorOf(e));
    }

    @Test
    void definingAKeyTwiceIsRefused() {
        ConfigDef def = new ConfigDef().define("k", Type.INT, 1, Importance.LOW, "K.");
        assertThrows(IllegalArgumentException.class, () -> def.define("k", Type.LONG, 1L, Importance.LOW, "K."));
    }

    @Test
    void invalidDefaultIsRefusedAtDefinition() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> new ConfigDef().define("k", Type.INT, -1, Range.atLeast(0), Importance.LOW, "K."));
        assertEquals("k", e.key());
        assertThrows(ConfigException.class,
                () -> new ConfigDef().define("k", Type.INT, "many", Importance.LOW, "K."));
    }

    @Test
    void copyConstructorDoesNotShareKeys() {
        ConfigDef base = sample();
        ConfigDef extended = new ConfigDef(base).define("extra", Type.INT, 1, Importance.LOW, "Extra.");
        assertTrue(extended.names().contains("extra"));
        assertFalse(base.names().contains("extra"));
        assertTrue(extended.names().containsAll(base.names()));
    }

    @Test
    void markdownTableHasOneRowPerKeyWithTypeDefaultValidatorAndDoc() {
        ConfigDef def = sample()
                .define("req", Type.STRING, Importance.HIGH, "Needs a | pipe\nand a newline.");
        String table = def.toMarkdownTable();
        String[] lines = table.split("\n");
        assertEquals(2 + def.names().size(), lines.length);
        assertEquals("| Name | Type | Default | Valid values | Importance | Description |", lines[0]);
        for (String name : def.names()) {
            assertTrue(table.contains("| `" + name + "` |"), name);
        }
        assertTrue(table.contains("| `a.int` | int | `10` | [0,...] | high | An int. |"), table);
        assertTrue(table.contains("| `a.long` | long | `20` | [-1,...,100] | medium | A long. |"), table);
        assertTrue(table.contains("| `a.string` | string | `x` | x, y | low | A string. |"), table);
        assertTrue(table.contains("| `a.list` | list | `p,q` |  | low | A list. |"), table);
        assertTrue(table.contains("| `an.optional` | long | (unset) |"), table);
        assertTrue(table.contains("| `req` | string | (required) |  | high | Needs a \\| pipe and a newline. |"),
                table);
    }

    @Test
    void rangeValidators() {
        Range atLeast = Range.atLeast(14);
        atLeast.ensureValid("k", 14);
        atLeast.ensureValid("k", Long.MAX_VALUE);
        assertEquals("Invalid value 13 for configuration k: Value must be at least 14",
                assertThrows(ConfigException.class, () -> atLeast.ensureValid("k", 13)).getMessage());

        Range between = Range.between(1, 3);
        between.ensureValid("k", 1L);
        between.ensureValid("k", 3L);
        assertThrows(ConfigException.class, () -> between.ensureValid("k", 0));
        assertThrows(ConfigException.class, () -> between.ensureValid("k", 4));
        assertThrows(ConfigException.class, () -> between.ensureValid("k", 3.5));
        assertThrows(ConfigException.class, () -> between.ensureValid("k", "2"));
        assertThrows(IllegalArgumentException.class, () -> Range.between(3, 1));
    }

    @Test
    void validStringIsCaseSensitive() {
        ValidString v = ValidString.in("CreateTime", "LogAppendTime");
        v.ensureValid("k", "LogAppendTime");
        ConfigException e = assertThrows(ConfigException.class, () -> v.ensureValid("k", "createtime"));
        assertEquals("Invalid value createtime for configuration k: String must be one of: CreateTime, LogAppendTime",
                e.getMessage());
    }

    @Test
    void nonEmptyListRefusesEmptyListsAndBlankEntries() {
        ConfigDef def = new ConfigDef()
                .define("dirs", Type.LIST, ConfigDef.NO_DEFAULT, ValidList.nonEmpty(), Importance.HIGH, "Dirs.");
        assertEquals(List.of("/a", "/b"), def.parse(Map.of("dirs", "/a,/b")).get("dirs"));
        for (Object bad : List.of("", " ", "/a,,/b", "/a,", List.of(), List.of("/a", " "))) {
            ConfigException e = assertThrows(ConfigException.class, () -> def.parse(Map.of("dirs", bad)),
                    String.valueOf(bad));
            assertEquals("dirs", e.key());
            assertTrue(e.getMessage().startsWith("Invalid value "), e.getMessage());
        }
        assertEquals(Set.of(), def.unknownKeys(Map.of("dirs", "/a")));
    }
}
