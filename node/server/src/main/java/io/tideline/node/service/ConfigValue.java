package io.tideline.node.service;

/** One key set to one value, in the order a request lists them (the controller validates both). */
public record ConfigValue(String key, String value) {
}
