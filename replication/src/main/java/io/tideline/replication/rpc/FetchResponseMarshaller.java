package io.tideline.replication.rpc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.tideline.proto.replication.ReplicaFetchResponse;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads a replica fetch response off the wire with one copy: the whole message into one array sized to
 * it, parsed with aliasing so that each partition's {@code records} is a view of that array rather than a
 * copy of it. gRPC's own protobuf marshaller copies twice (into a reused per-thread array, then each
 * {@code bytes} field out of it), and those 1 MiB arrays are humongous objects for G1 in a broker-sized heap.
 *
 * <p>The array belongs to the response from then on and is released with it; it is bounded by the
 * channel's max inbound message size, which the follower sets from replica.fetch.response.max.bytes. A
 * message that comes as a stream of unknown length, or as the sender's own message object (the
 * in-process transport: nothing to copy), goes to gRPC's marshaller unchanged. Writing is gRPC's.
 *
 * <p>Thread-safe (stateless).
 */
final class FetchResponseMarshaller implements MethodDescriptor.Marshaller<ReplicaFetchResponse> {
    static final FetchResponseMarshaller INSTANCE = new FetchResponseMarshaller();

    private static final MethodDescriptor.Marshaller<ReplicaFetchResponse> PROTO =
            ProtoUtils.marshaller(ReplicaFetchResponse.getDefaultInstance());

    private FetchResponseMarshaller() {
    }

    @Override
    public InputStream stream(ReplicaFetchResponse value) {
        return PROTO.stream(value);
    }

    @Override
    public ReplicaFetchResponse parse(InputStream stream) {
        // A Drainable stream is a message still in memory (in-process): gRPC's marshaller hands the object over.
        if (stream instanceof Drainable || !(stream instanceof KnownLength)) {
            return PROTO.parse(stream);
        }
        try {
            int size = stream.available();
            if (size == 0) {
                return ReplicaFetchResponse.getDefaultInstance();
            }
            byte[] message = new byte[size];
            int read = stream.readNBytes(message, 0, size);
            if (read != size || stream.read() != -1) {
                throw Status.INTERNAL.withDescription("replica fetch response of " + size + " bytes announced, "
                        + (read != size ? read : "more") + " read").asRuntimeException();
            }
            // Aliasing needs an input the parser may treat as immutable, which only a ByteString's own input is.
            CodedInputStream input = UnsafeByteOperations.unsafeWrap(message).newCodedInput();
            input.enableAliasing(true);
            input.setSizeLimit(Integer.MAX_VALUE);
            ReplicaFetchResponse response = ReplicaFetchResponse.parseFrom(input);
            input.checkLastTagWas(0);
            return response;
        } catch (InvalidProtocolBufferException e) {
            throw Status.INTERNAL.withDescription("Invalid protobuf byte sequence").withCause(e).asRuntimeException();
        } catch (IOException e) {
            throw Status.INTERNAL.withDescription("Reading a replica fetch response failed").withCause(e)
                    .asRuntimeException();
        }
    }
}
