package org.mpfl.runtime.topology;

/**
 * How communicator context ids are laid out. Every communicator has two contexts: an even one for
 * its users' point-to-point messages and the next odd one, private, for its collectives (so a user's
 * wildcard receive never takes a collective's message). {@code world} is 0/1; the communicator of
 * the i-th process of an MPMD workflow is {@code 2 + 2i}; communicators made by split, dup and
 * cartesian get ids from {@link #FIRST_DERIVED} on, agreed by the members ({@link ContextAllocator}).
 */
public final class ContextIds {
    /** The world communicator's user context. */
    public static final int WORLD = 0;
    /** First id handed out for split/dup/cartesian; below it: world and up to 2^19 - 1 process communicators. */
    public static final int FIRST_DERIVED = 1 << 20;

    private ContextIds() {
    }

    /** The private context of a communicator's collectives. */
    public static int collectiveContext(int userContext) {
        return userContext + 1;
    }

    /** The user context of the communicator of process number {@code index} (document order). */
    public static int processContext(int index) {
        if (index < 0 || 2 + 2 * index >= FIRST_DERIVED) {
            throw new IllegalArgumentException("process index " + index + " out of range");
        }
        return 2 + 2 * index;
    }
}
