package io.tideline.node.testutil;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A gRPC method called with bytes as they are: the request a client sends need not be the method's message at all,
 * and the answer is read back as bytes. For tests of what the node does with any bytes.
 */
public final class RawGrpc {
    /** Hands bytes on as they are, both ways. */
    public static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private RawGrpc() {
    }

    /** {@code typed}'s name and type, its request and answer as bytes. */
    public static MethodDescriptor<byte[], byte[]> asBytes(MethodDescriptor<?, ?> typed) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(typed.getType())
                .setFullMethodName(typed.getFullMethodName()).setRequestMarshaller(BYTES).setResponseMarshaller(BYTES)
                .build();
    }
}
