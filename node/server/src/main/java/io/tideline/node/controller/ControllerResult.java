package io.tideline.node.controller;

import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.MetadataRecord;
import java.util.List;

/**
 * What a command does: the records to replay (empty when it is refused or changes nothing) and the
 * answer for its submitter. Errors are values here, never exceptions.
 */
public record ControllerResult(ControllerResponse response, List<MetadataRecord> records) {

    public ControllerResult {
        records = List.copyOf(records);
    }

    public static ControllerResult error(Errors error, String message) {
        return new ControllerResult(ControllerResponse.newBuilder().setErrorCode(error.code())
                .setErrorMessage(message == null ? "" : message).build(), List.of());
    }

    public static ControllerResult of(ControllerResponse response, List<MetadataRecord> records) {
        return new ControllerResult(response, records);
    }

    public Errors error() {
        return Errors.forCode(response.getErrorCode());
    }
}
