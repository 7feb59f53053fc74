package io.tideline.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** java.util.Properties as the string map the config classes take. */
final class ClientProps {
    private ClientProps() {
    }

    static Map<String, Object> toMap(Properties props) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (String name : props.stringPropertyNames()) {
            map.put(name, props.getProperty(name));
        }
        return map;
    }
}
