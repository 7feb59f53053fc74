package io.tideline.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigDef.Importance;
import io.tideline.common.config.ConfigDef.Type;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

class AbstractConfigTest {

    private static final ConfigDef DEF = new ConfigDef()
            .define("b.int", Type.INT, 1, Range.atLeast(0), Importance.HIGH, "Int.")
            .define("a.long", Type.LONG, 2L, Importance.HIGH, "Long.")
            .define("c.double", Type.DOUBLE, 0.5, Importance.LOW, "Double.")
            .define("d.bool", Type.BOOLEAN, true, Importance.LOW, "Bool.")
            .define("e.string", Type.STRING, "s", Importance.LOW, "String.")
            .define("f.list", Type.LIST, "x,y", Importance.LOW, "List.")
            .define("g.optional", Type.INT, null, Importance.LOW, "Optional.");

    static final class TestConfig extends AbstractConfig {
        TestConfig(Map<String, ?> props) {
            super(DEF, props);
        }
    }

    @Test
    void typedGettersReturnEffectiveValues() {
        TestConfig c = new TestConfig(Map.of("b.int", "5", "f.list", "p"));
        assertEquals(5, c.getInt("b.int"));
        assertEquals(2L, c.getLong("a.long"));
        assertEquals(0.5, c.getDouble("c.double"));
        assertEquals(true, c.getBoolean("d.bool"));
        assertEquals("s", c.getString("e.string"));
        assertEquals(List.of("p"), c.getList("f.list"));
        assertNull(c.getInt("g.optional"));
        assertEquals(5, c.get("b.int"));
    }

    @Test
    void getterOfWrongTypeOrUnknownKeyFails() {
        TestConfig c = new TestConfig(Map.of());
        assertThrows(IllegalArgumentException.class, () -> c.getLong("b.int"));
        assertEquals("nope", assertThrows(ConfigException.class, () -> c.getInt("nope")).key());
    }

    @Test
    void invalidValueFailsConstruction() {
        ConfigException e = assertThrows(ConfigException.class, () -> new TestConfig(Map.of("b.int", "-1")));
        assertEquals("b.int", e.key());
    }

    @Test
    void originalsValuesAndUnknownKeys() {
        TestConfig c = new TestConfig(Map.of("b.int", "5", "b.itn", "6", "other.component", "x"));
        assertEquals(Map.of("b.int", "5", "b.itn", "6", "other.component", "x"), c.originals());
        assertEquals(DEF.names(), c.values().keySet());
        assertEquals(Set.of("b.itn", "other.component"), c.unknownKeys());
        assertEquals(List.of("b.itn", "other.component"), List.copyOf(c.unknownKeys()));
    }

    @Test
    void describeValuesMarksDefaultAndCustomSortedByName() {
        // Supplying the default value explicitly still counts as custom: the operator set it.
        TestConfig c = new TestConfig(Map.of("b.int", "5", "f.list", "p, q", "d.bool", "true"));
        assertEquals(List.of(
                "a.long = 2 (default)",
                "b.int = 5 (custom)",
                "c.double = 0.5 (default)",
                "d.bool = true (custom)",
                "e.string = s (default)",
                "f.list = p,q (custom)",
                "g.optional = null (default)"), c.describeValues());
        assertTrue(c.isDefault("a.long"));
        assertFalse(c.isDefault("b.int"));
    }

    @Test
    void logValuesLogsEveryValueInOneInfoMessage() {
        List<String> infos = new ArrayList<>();
        Logger log = (Logger) Proxy.newProxyInstance(Logger.class.getClassLoader(), new Class<?>[] {Logger.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("info") && args.length == 1) {
                        infos.add((String) args[0]);
                    } else if (!method.getName().startsWith("is")) {
                        throw new AssertionError("unexpected logger call " + method);
                    }
                    return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
                });
        TestConfig c = new TestConfig(Map.of("b.int", "5"));
        c.logValues(log);
        assertEquals(1, infos.size());
        String block = infos.get(0);
        assertTrue(block.startsWith("TestConfig values:"), block);
        for (String line : c.describeValues()) {
            assertTrue(block.contains("\t" + line), line);
        }
        assertTrue(block.contains("b.int = 5 (custom)"), block);
        assertTrue(block.contains("a.long = 2 (default)"), block);
    }
}
