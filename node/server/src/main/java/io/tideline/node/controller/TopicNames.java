package io.tideline.node.controller;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

/** Kafka's topic name rules, and topic ids in Kafka's printed form. */
final class TopicNames {
    static final int MAX_NAME_LENGTH = 249;

    private TopicNames() {
    }

    /** Null when valid, else why not. */
    static String invalidReason(String name) {
        if (name.isEmpty()) {
            return "the topic name is empty";
        }
        if (name.equals(".") || name.equals("..")) {
            return "the topic name cannot be '.' or '..'";
        }
        if (name.length() > MAX_NAME_LENGTH) {
            return "the topic name is longer than " + MAX_NAME_LENGTH + " characters";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!legal) {
                return "the topic name '" + name + "' contains '" + c + "'; legal characters are [a-zA-Z0-9._-]";
            }
        }
        return null;
    }

    /**
     * '.' and '_' collide in metric names (Kafka replaces one with the other), so two topics whose
     * names differ only there cannot both exist.
     */
    static String metricName(String name) {
        return name.replace('.', '_');
    }

    /**
     * A topic id every voter computes alike: derived from the Raft index that creates the topic and its
     * name (unique per index and name), printed as Kafka prints ids (22 characters of base64url).
     */
    static String topicId(String name, long offset) {
        UUID uuid = UUID.nameUUIDFromBytes((name + "@" + offset).getBytes(StandardCharsets.UTF_8));
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }
}
