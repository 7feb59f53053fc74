package io.tideline.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigDef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/client.md carries each client's configuration table exactly as the definitions produce it. */
class ClientConfigDocsTest {
    /** Surefire runs with the module directory as working directory. */
    private static final Path DOC = Path.of("..", "..", "docs", "client.md");

    static Map<String, ConfigDef> definitions() {
        return Map.of("ProducerConfig", ProducerConfig.configDef(), "ConsumerConfig", ConsumerConfig.configDef(),
                "AdminConfig", AdminConfig.configDef());
    }

    @Test
    void theDocsHoldTheGeneratedTableOfEveryClient() throws IOException {
        String doc = Files.readString(DOC, StandardCharsets.UTF_8);
        definitions().forEach((name, def) -> assertTrue(doc.contains(def.toMarkdownTable()),
                "docs/client.md lacks the current table of " + name + "; replace it with:\n" + def.toMarkdownTable()));
        assertTrue(doc.contains(ConsumerMetrics.RECORDS_SKIPPED_BY_RESET));
    }
}
