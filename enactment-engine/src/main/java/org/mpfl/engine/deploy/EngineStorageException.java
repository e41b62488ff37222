package org.mpfl.engine.deploy;

import java.io.IOException;

/**
 * The engine cannot read or write what it keeps itself: its archives ({@code DATA/archives}: its permissions, a full
 * disk, a failed move), the JSON it stored with a workflow version, a file of its own build. The engine's failure,
 * never the client's, whose request may be fine: the REST API answers it as an incident (HTTP 500 with an incident id,
 * the message and its paths only in the engine's log), where every other {@link IOException} of a request is about
 * what the client sent (a plan that is no deployment plan, an archive that is no service archive: 400). In this
 * package, where archives were its first case, because every layer that keeps something of its own may use it
 * ({@code EngineArchitectureTest}: the deployments are below the workflows and the REST API, the store is not).
 */
public final class EngineStorageException extends IOException {
    private static final long serialVersionUID = 1L;

    public EngineStorageException(String message, IOException cause) {
        super(message, cause);
    }
}
