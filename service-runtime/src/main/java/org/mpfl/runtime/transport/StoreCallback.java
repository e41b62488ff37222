package org.mpfl.runtime.transport;

/** Receives the outcome of a {@link Transport#storeAsync} store. */
@FunctionalInterface
public interface StoreCallback {
    /**
     * @param failure {@code null} if the envelope was stored (or recognised as duplicate), else what
     *                {@link Transport#store} would have thrown
     */
    void done(TransportException failure);
}
