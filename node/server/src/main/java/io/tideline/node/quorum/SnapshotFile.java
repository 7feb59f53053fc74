package io.tideline.node.quorum;

import io.tideline.common.io.FileUtils;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.MetadataSnapshot;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.util.MD5FileUtil;

/**
 * A metadata snapshot on disk: the serialized image of one Raft index, checksummed.
 *
 * <pre>
 * &lt;metadata.log.dir&gt;/&lt;group uuid&gt;/sm/
 *   snapshot.&lt;term&gt;_&lt;index&gt;       MetadataSnapshot protobuf (ImageSerde.serialize), nothing else
 *   snapshot.&lt;term&gt;_&lt;index&gt;.md5   "&lt;32 hex digits&gt; *snapshot.&lt;term&gt;_&lt;index&gt;\n" (Ratis MD5FileUtil)
 * </pre>
 *
 * The names are Ratis' {@link SimpleStateMachineStorage} names, so Ratis finds, retains, purges
 * and ships these files to lagging followers itself (a follower that installs one gets the .md5 too).
 * A snapshot file never exists without its checksum: the data goes to a temporary file first, the
 * .md5 is written, and only then is the data renamed into place. A snapshot that fails its checksum
 * or does not parse is never used: {@link #readVerified} throws, and the node refuses to start.
 */
public final class SnapshotFile {
    private SnapshotFile() {
    }

    /** Writes {@code image} as {@code target} plus its .md5, crash-safely. */
    public static void write(File target, MetadataImage image) throws IOException {
        byte[] bytes = ImageSerde.serialize(image);
        Path dir = target.toPath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(target.getName() + ".tmp");
        FileUtils.writeAndSync(tmp, bytes);
        // Ratis' computeAndSaveMd5ForFile would name the checksum after the temporary file; compute
        // over the temporary file and save it under the final name instead, before the rename.
        MD5Hash md5 = MD5FileUtil.computeMd5ForFile(tmp.toFile());
        MD5FileUtil.saveMD5File(target, md5);
        FileUtils.atomicMoveWithFallback(tmp, target.toPath()); // also fsyncs the directory
    }

    /**
     * The image in {@code file} after checking it against its .md5 and its name.
     *
     * @throws IOException naming the file and what is wrong with it when it is corrupt, has no
     *                     checksum, does not parse, or holds another index than its name says
     */
    public static MetadataImage readVerified(File file) throws IOException {
        TermIndex named = SimpleStateMachineStorage.getTermIndexFromSnapshotFile(file);
        File md5File = MD5FileUtil.getDigestFileForFile(file);
        if (!md5File.isFile()) {
            throw new IOException("Metadata snapshot " + file + " has no checksum file " + md5File.getName()
                    + "; refusing to use it. Remove the snapshot (the node then catches up from the quorum) or restore the file.");
        }
        MD5Hash stored = MD5FileUtil.readStoredMd5ForFile(file);
        MD5Hash computed = MD5FileUtil.computeMd5ForFile(file);
        if (!computed.equals(stored)) {
            throw new IOException("Metadata snapshot " + file + " is corrupt: MD5 " + computed + " does not match the stored "
                    + stored + "; refusing to start. Remove the snapshot and its .md5 (the node then catches up from the quorum).");
        }
        MetadataSnapshot snapshot;
        try {
            snapshot = MetadataSnapshot.parseFrom(Files.readAllBytes(file.toPath()));
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IOException("Metadata snapshot " + file + " does not parse although its checksum matches: " + e.getMessage(), e);
        }
        if (snapshot.getOffset() != named.getIndex() || snapshot.getTerm() != named.getTerm()) {
            throw new IOException("Metadata snapshot " + file + " holds term " + snapshot.getTerm() + " index "
                    + snapshot.getOffset() + ", not what its name says");
        }
        return ImageSerde.fromSnapshot(snapshot);
    }

    /** The snapshot with the highest index in {@code dir}, checked or not; empty if there is none. */
    public static Optional<File> latest(File dir) throws IOException {
        if (dir == null || !dir.isDirectory()) {
            return Optional.empty();
        }
        File best = null;
        long bestIndex = -1;
        try (Stream<Path> files = Files.list(dir.toPath())) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Matcher m = SimpleStateMachineStorage.SNAPSHOT_REGEX.matcher(p.getFileName().toString());
                if (m.matches()) {
                    long index = Long.parseLong(m.group(2));
                    if (index > bestIndex) {
                        bestIndex = index;
                        best = p.toFile();
                    }
                }
            }
        }
        return Optional.ofNullable(best);
    }
}
