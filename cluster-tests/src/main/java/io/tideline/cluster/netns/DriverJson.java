package io.tideline.cluster.netns;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.TypeAdapter;
import com.google.gson.TypeAdapterFactory;
import com.google.gson.reflect.TypeToken;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Optional;

/**
 * The Gson both ends of the driver protocol use: the client's result records (TopicDescription,
 * PartitionReplicas, ...) go across as Gson writes records, with {@link Optional} fields as the value or null
 * (Gson cannot look inside Optional by reflection).
 */
final class DriverJson {
    static final Gson GSON = new GsonBuilder().serializeNulls().registerTypeAdapterFactory(new OptionalAdapters())
            .create();

    private DriverJson() {
    }

    private static final class OptionalAdapters implements TypeAdapterFactory {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public <T> TypeAdapter<T> create(Gson gson, TypeToken<T> type) {
            if (type.getRawType() != Optional.class) {
                return null;
            }
            Type inner = type.getType() instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
            TypeAdapter<Object> delegate = (TypeAdapter<Object>) gson.getAdapter(TypeToken.get(inner));
            return (TypeAdapter<T>) new TypeAdapter<Optional<Object>>() {
                @Override
                public void write(JsonWriter out, Optional<Object> value) throws IOException {
                    if (value == null || value.isEmpty()) {
                        out.nullValue();
                    } else {
                        delegate.write(out, value.get());
                    }
                }

                @Override
                public Optional<Object> read(JsonReader in) throws IOException {
                    if (in.peek() == JsonToken.NULL) {
                        in.nextNull();
                        return Optional.empty();
                    }
                    return Optional.of(delegate.read(in));
                }
            };
        }
    }
}
