package io.tideline.store.dir;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.io.FileUtils;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * The identity stamp of a log directory, {@code <log.dir>/meta.properties}, in Kafka's version 1
 * layout (java.util.Properties text, ISO-8859-1 with {@code \\uXXXX} escapes):
 *
 * <pre>
 * #Tideline log directory identity; do not edit
 * version=1
 * cluster.id=&lt;cluster id&gt;
 * node.id=&lt;broker id&gt;
 * directory.id=&lt;22-char URL-safe base64 of 16 random bytes, Kafka's Uuid text form&gt;
 * </pre>
 *
 * A broker stamps each of its log dirs on first start and checks the stamp on every later start, so a
 * dir mounted on the wrong host or left from another cluster is refused rather than served. The
 * directory id is generated once and never changes; it names the dir in metadata even if its path
 * changes. Keys are written in the fixed order above (Properties itself has none); readers accept any
 * order, as Kafka does.
 *
 * <p>Thread-safety: immutable. {@link #ensure} is meant to run once per dir at startup while holding the
 * dir's {@link LogDirLock}; two concurrent calls on one dir could each generate a directory id.
 */
public record MetaProperties(String clusterId, int nodeId, String directoryId) {

    public static final String FILE_NAME = "meta.properties";
    public static final int VERSION = 1;

    static final String VERSION_KEY = "version";
    static final String CLUSTER_ID_KEY = "cluster.id";
    static final String NODE_ID_KEY = "node.id";
    static final String DIRECTORY_ID_KEY = "directory.id";

    public MetaProperties {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(directoryId, "directoryId");
        if (clusterId.isEmpty()) {
            throw new IllegalArgumentException("clusterId must not be empty");
        }
        if (nodeId < 0) {
            throw new IllegalArgumentException("nodeId must be >= 0: " + nodeId);
        }
        if (directoryId.isEmpty()) {
            throw new IllegalArgumentException("directoryId must not be empty");
        }
    }

    /**
     * Stamps {@code logDir} for this cluster and node if it has no {@code meta.properties} yet (creating
     * the dir if needed), otherwise checks the stamp. A v1 file without a {@code directory.id} (written
     * before Kafka had them) gets one added.
     *
     * @return the stamp now on disk
     * @throws InconsistentMetaPropertiesException if the file names another cluster or node
     * @throws TidelineException                   (KAFKA_STORAGE_ERROR) if the file is malformed
     * @throws IOException                         if it cannot be read or written
     */
    public static MetaProperties ensure(Path logDir, String clusterId, int nodeId) throws IOException {
        Objects.requireNonNull(clusterId, "clusterId");
        if (clusterId.isEmpty() || nodeId < 0) {
            throw new IllegalArgumentException("need a non-empty cluster id and node id >= 0, got '"
                    + clusterId + "' and " + nodeId);
        }
        Path file = logDir.resolve(FILE_NAME);
        Optional<Properties> existing = load(file);
        if (existing.isEmpty()) {
            MetaProperties created = new MetaProperties(clusterId, nodeId, newDirectoryId());
            Files.createDirectories(logDir);
            FileUtils.writeAtomically(file, created.toBytes());
            return created;
        }
        Properties props = existing.get();
        checkVersion(file, props);
        String foundCluster = required(file, props, CLUSTER_ID_KEY);
        if (!foundCluster.equals(clusterId)) {
            throw new InconsistentMetaPropertiesException(logDir, CLUSTER_ID_KEY, clusterId, foundCluster);
        }
        String foundNode = required(file, props, NODE_ID_KEY);
        if (parseNodeId(file, foundNode) != nodeId) {
            throw new InconsistentMetaPropertiesException(logDir, NODE_ID_KEY, Integer.toString(nodeId), foundNode);
        }
        String directoryId = props.getProperty(DIRECTORY_ID_KEY);
        if (directoryId == null || directoryId.isEmpty()) {
            MetaProperties upgraded = new MetaProperties(clusterId, nodeId, newDirectoryId());
            FileUtils.writeAtomically(file, upgraded.toBytes());
            return upgraded;
        }
        return new MetaProperties(clusterId, nodeId, directoryId);
    }

    /**
     * The stamp of {@code logDir}, or empty if it has none.
     *
     * @throws TidelineException (KAFKA_STORAGE_ERROR) if the file cannot be read, is malformed, or lacks
     *                           a required key
     */
    public static Optional<MetaProperties> read(Path logDir) {
        Path file = logDir.resolve(FILE_NAME);
        Optional<Properties> loaded;
        try {
            loaded = load(file);
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Failed to read " + file + ": " + e, e);
        }
        if (loaded.isEmpty()) {
            return Optional.empty();
        }
        Properties props = loaded.get();
        checkVersion(file, props);
        String nodeId = required(file, props, NODE_ID_KEY);
        return Optional.of(new MetaProperties(required(file, props, CLUSTER_ID_KEY), parseNodeId(file, nodeId),
                required(file, props, DIRECTORY_ID_KEY)));
    }

    /** The file content: a comment line, then the keys in a fixed order, each escaped by Properties. */
    byte[] toBytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] header = "#Tideline log directory identity; do not edit\n".getBytes(StandardCharsets.ISO_8859_1);
        out.writeBytes(header);
        out.writeBytes(line(VERSION_KEY, Integer.toString(VERSION)));
        out.writeBytes(line(CLUSTER_ID_KEY, clusterId));
        out.writeBytes(line(NODE_ID_KEY, Integer.toString(nodeId)));
        out.writeBytes(line(DIRECTORY_ID_KEY, directoryId));
        return out.toByteArray();
    }

    /** One {@code key=value} line escaped exactly as Properties.store does, minus its date comment. */
    private static byte[] line(String key, String value) {
        Properties single = new Properties();
        single.setProperty(key, value);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            single.store(out, null);
        } catch (IOException e) {
            throw new AssertionError("in-memory stream", e);
        }
        // store(OutputStream) escapes everything outside printable ASCII, so this is ASCII text.
        String text = out.toString(StandardCharsets.ISO_8859_1);
        StringBuilder kept = new StringBuilder();
        for (String l : text.split("\\R")) {
            if (!l.isEmpty() && !l.startsWith("#")) {
                kept.append(l).append('\n');
            }
        }
        return kept.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * A Kafka-style Uuid string: 16 random bytes in URL-safe base64 without padding. Like Kafka, avoid
     * ids starting with '-', which command-line tools would take for an option.
     */
    static String newDirectoryId() {
        while (true) {
            UUID uuid = UUID.randomUUID();
            ByteBuffer bytes = ByteBuffer.allocate(16);
            bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
            String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
            if (!id.startsWith("-")) {
                return id;
            }
        }
    }

    private static Optional<Properties> load(Path file) throws IOException {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            // Properties.load throws this for a malformed \\uXXXX escape.
            throw malformed(file, e.getMessage());
        }
        return Optional.of(props);
    }

    private static void checkVersion(Path file, Properties props) {
        String version = required(file, props, VERSION_KEY);
        if (!version.equals(Integer.toString(VERSION))) {
            throw malformed(file, "unsupported version=" + version + " (expected " + VERSION + ")");
        }
    }

    private static String required(Path file, Properties props, String key) {
        String value = props.getProperty(key);
        if (value == null || value.isEmpty()) {
            throw malformed(file, "missing " + key);
        }
        return value;
    }

    private static int parseNodeId(Path file, String value) {
        try {
            int id = Integer.parseInt(value);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw malformed(file, "node.id is not a non-negative integer: " + value);
    }

    private static TidelineException malformed(Path file, String detail) {
        return new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Malformed " + file + ": " + detail);
    }
}
