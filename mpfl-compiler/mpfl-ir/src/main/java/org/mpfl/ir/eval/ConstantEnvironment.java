package org.mpfl.ir.eval;

import java.util.Map;

/**
 * The environment of expressions that may only read params (param defaults, process rank counts):
 * anything rank-dependent is refused with {@link NotConstantException}.
 */
public final class ConstantEnvironment implements EvaluationEnvironment {
    private final Map<String, Object> params;

    /** @param params param values by name (missing ones are "unknown": reading them throws) */
    public ConstantEnvironment(Map<String, Object> params) {
        this.params = Map.copyOf(params);
    }

    /** Thrown when a params-only evaluation reaches something it cannot know (a param without value, a rank built-in). */
    public static final class NotConstantException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NotConstantException(String message) {
            super(message);
        }
    }

    @Override
    public Object variable(String name) {
        Object value = params.get(name);
        if (value == null) {
            throw new NotConstantException("param '" + name + "' has no value");
        }
        return value;
    }

    private static int refuse(String what) {
        throw new NotConstantException(what + " is not known before the run");
    }

    @Override
    public int worldRank() {
        return refuse("rank");
    }

    @Override
    public int worldSize() {
        return refuse("size");
    }

    @Override
    public int processRank() {
        return refuse("prank");
    }

    @Override
    public int processSize() {
        return refuse("psize");
    }

    @Override
    public int firstRank(String process) {
        return refuse("first('" + process + "')");
    }

    @Override
    public int rankCount(String process) {
        return refuse("count('" + process + "')");
    }

    @Override
    public int commRank(String comm) {
        return refuse("rank('" + comm + "')");
    }

    @Override
    public int commSize(String comm) {
        return refuse("size('" + comm + "')");
    }

    @Override
    public int[] coords(String comm) {
        refuse("coords('" + comm + "')");
        return null;
    }

    @Override
    public int neighbor(String comm, int dim, int displacement) {
        return refuse("neighbor('" + comm + "', ...)");
    }
}
