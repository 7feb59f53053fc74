package io.tideline.node.group;

import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import java.util.concurrent.CompletableFuture;

/** Where the coordinator commits group changes: the metadata quorum (the controller client's submit). */
@FunctionalInterface
public interface GroupQuorum {
    CompletableFuture<ControllerResponse> submit(ControllerCommand command);
}
