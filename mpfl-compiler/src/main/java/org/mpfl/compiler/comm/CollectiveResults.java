package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.ir.eval.Values;
import org.mpfl.ir.semantics.CartesianGrid;
import org.mpfl.ir.semantics.CollectiveShape;
import org.mpfl.ir.semantics.SplitChoice;

/**
 * What a matched collective gives each member, as far as the check follows values: a broadcast
 * copies the root's value, reductions and scans of known numbers and booleans are computed (an
 * unknown contribution makes the result unknown), split and cartesian create the new communicators
 * (MPI_Comm_split order by key then old rank; a negative colour joins none; a Cartesian grid smaller
 * than its parent leaves the last ranks out). Gathered, scattered and exchanged data are not followed:
 * they are {@link Unknown}. A fault of the collective itself is a {@link RankStop} result.
 */
final class CollectiveResults {
    /** Largest gathered result the check builds (a gather over thousands of ranks must not allocate gigabytes). */
    private static final long MAX_GATHERED = 1 << 20;

    private int nextCommunicatorId;

    CollectiveResults(int firstCommunicatorId) {
        this.nextCommunicatorId = firstCommunicatorId;
    }

    Object[] complete(CollectiveRendezvous.Slot slot) {
        CollectiveRendezvous.Arrival[] arrivals = slot.arrivals;
        int n = arrivals.length;
        Object[] results = new Object[n];
        IrActivity activity = arrivals[0].activity();
        if (activity instanceof IrActivity.Broadcast b) {
            Object value = arrivals[arrivals[0].root()].contribution();
            for (int i = 0; i < n; i++) {
                results[i] = Values.copy(value);
            }
        } else if (activity instanceof IrActivity.Allreduce || activity instanceof IrActivity.Reduce
                || activity instanceof IrActivity.Scan) {
            IrActivity.ReduceOp op = CollectiveShape.op(activity);
            Object acc = null;
            for (int i = 0; i < n; i++) {
                Object value = arrivals[i].contribution();
                acc = i == 0 ? Values.copy(value) : combine(acc, value, op, activity);
                results[i] = acc instanceof Unknown || acc instanceof RankStop ? acc : Values.copy(acc);
            }
            if (!(activity instanceof IrActivity.Scan)) {
                Arrays.fill(results, acc);
            }
        } else if (activity instanceof IrActivity.Gather || activity instanceof IrActivity.Allgather) {
            Arrays.fill(results, gather(arrivals, activity));
        } else if (activity instanceof IrActivity.Split s) {
            split(slot, s, results);
        } else if (activity instanceof IrActivity.Cartesian c) {
            cartesian(slot, c, results);
        } else if (!(activity instanceof IrActivity.Barrier) && !(activity instanceof IrActivity.Checkpoint)) {
            Unknown unknown = new Unknown(intoOf(activity), "the result of <" + IrActivity.elementName(activity) + "> at "
                    + activity.at() + " (the check does not follow gathered, scattered or exchanged data)");
            Arrays.fill(results, unknown);
        }
        return results;
    }

    /** Numbers gathered in rank order: scalars into an array of their type, arrays concatenated; anything else is not followed. */
    private static Object gather(CollectiveRendezvous.Arrival[] arrivals, IrActivity activity) {
        Unknown notFollowed = new Unknown(intoOf(activity), "the result of <" + IrActivity.elementName(activity) + "> at "
                + activity.at() + " (the check follows gathered numbers only, up to " + MAX_GATHERED + " of them)");
        Object first = arrivals[0].contribution();
        long total = 0;
        for (CollectiveRendezvous.Arrival a : arrivals) {
            Object v = a.contribution();
            if (v instanceof Unknown u) {
                return u;
            }
            boolean number = v instanceof Integer || v instanceof Long || v instanceof Double;
            boolean numbers = v instanceof int[] || v instanceof long[] || v instanceof double[];
            if (!(number || numbers) || v.getClass() != first.getClass()) {
                return notFollowed;
            }
            total += number ? 1 : Values.length(v);
        }
        if (total > MAX_GATHERED) {
            return notFollowed;
        }
        Object out = first instanceof Integer || first instanceof int[] ? new int[(int) total]
                : first instanceof Long || first instanceof long[] ? new long[(int) total]
                : first instanceof Double || first instanceof double[] ? new double[(int) total] : null;
        if (out == null) {
            return notFollowed;
        }
        int at = 0;
        for (CollectiveRendezvous.Arrival a : arrivals) {
            Object v = a.contribution();
            if (v instanceof Number) {
                java.lang.reflect.Array.set(out, at++, v);
            } else {
                int n = Values.length(v);
                System.arraycopy(v, 0, out, at, n);
                at += n;
            }
        }
        return out;
    }

    private static String intoOf(IrActivity a) {
        if (a instanceof IrActivity.Scatter x) {
            return x.into().variable();
        } else if (a instanceof IrActivity.Gather x) {
            return x.into().variable();
        } else if (a instanceof IrActivity.Allgather x) {
            return x.into().variable();
        } else if (a instanceof IrActivity.Alltoall x) {
            return x.into().variable();
        }
        return "?";
    }

    private static Object combine(Object acc, Object value, IrActivity.ReduceOp op, IrActivity activity) {
        if (acc instanceof Unknown || acc instanceof RankStop) {
            return acc;
        }
        if (value instanceof Unknown) {
            return value;
        }
        if (acc instanceof int[] a && value instanceof int[] b && a.length == b.length) {
            int[] r = new int[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = (Integer) scalar(a[i], b[i], op);
            }
            return r;
        } else if (acc instanceof long[] a && value instanceof long[] b && a.length == b.length) {
            long[] r = new long[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = (Long) scalar(a[i], b[i], op);
            }
            return r;
        } else if (acc instanceof double[] a && value instanceof double[] b && a.length == b.length) {
            double[] r = new double[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = (Double) scalar(a[i], b[i], op);
            }
            return r;
        } else if (acc.getClass().isArray() || value.getClass().isArray()) {
            return RankStop.fault(activity.at(), "element-wise <" + IrActivity.elementName(activity)
                    + "> of arrays of different lengths (" + Values.length(acc) + " and " + Values.length(value) + ")");
        }
        return scalar(acc, value, op);
    }

    private static Object scalar(Object a, Object b, IrActivity.ReduceOp op) {
        if (a instanceof Boolean x && b instanceof Boolean y) {
            return op == IrActivity.ReduceOp.LAND ? x && y : x || y;
        }
        if (a instanceof Integer x && b instanceof Integer y) {
            return switch (op) {
                case SUM -> x + y;
                case PROD -> x * y;
                case MIN -> Math.min(x, y);
                case MAX -> Math.max(x, y);
                case BAND -> x & y;
                default -> x | y;
            };
        }
        if (a instanceof Long x && b instanceof Long y) {
            return switch (op) {
                case SUM -> x + y;
                case PROD -> x * y;
                case MIN -> Math.min(x, y);
                case MAX -> Math.max(x, y);
                case BAND -> x & y;
                default -> x | y;
            };
        }
        double x = ((Number) a).doubleValue();
        double y = ((Number) b).doubleValue();
        return switch (op) {
            case SUM -> x + y;
            case PROD -> x * y;
            case MIN -> Math.min(x, y);
            default -> Math.max(x, y);
        };
    }

    private void split(CollectiveRendezvous.Slot slot, IrActivity.Split s, Object[] results) {
        Map<Integer, List<Integer>> byColour = new LinkedHashMap<>();
        for (int i = 0; i < slot.arrivals.length; i++) {
            SplitChoice choice = (SplitChoice) slot.arrivals[i].contribution();
            if (choice.joins()) {
                byColour.computeIfAbsent(choice.colour(), c -> new ArrayList<>()).add(i);
            }
        }
        for (List<Integer> group : byColour.values()) {
            group.sort(Comparator.<Integer>comparingInt(i -> ((SplitChoice) slot.arrivals[i].contribution()).key())
                    .thenComparingInt(i -> i));
            int[] members = group.stream().mapToInt(slot.comm::world).toArray();
            Communicator created = new Communicator(nextCommunicatorId++, s.name(), members, null, null);
            group.forEach(i -> results[i] = created);
        }
    }

    private void cartesian(CollectiveRendezvous.Slot slot, IrActivity.Cartesian c, Object[] results) {
        CartesianGrid grid = (CartesianGrid) slot.arrivals[0].contribution();
        int places;
        try {
            places = grid.placesIn(c.name(), slot.comm.name(), slot.comm.size(), c.at());
        } catch (RuntimeFault fault) {
            // a fault of the collective itself: every member stops with it
            Arrays.fill(results, RankStop.fault(fault.location(), fault.getMessage()));
            return;
        }
        int[] members = Arrays.copyOf(slot.comm.members(), places);
        Communicator created = new Communicator(nextCommunicatorId++, c.name(), members, grid.dims().clone(),
                grid.periodic().clone());
        for (int i = 0; i < results.length; i++) {
            results[i] = i < places ? created : null;
        }
    }
}
