package org.mpfl.ir;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * Traversals of the IR shared by the analyses and the interpreter: the nested bodies of an activity,
 * every activity of a body (pre-order), the expressions an activity evaluates, the slots it stores into,
 * and the names an expression reads.
 */
public final class IrWalk {
    private IrWalk() {
    }

    /** The bodies nested directly in {@code activity} (if arms then else, loop body, sequence, parallel branches). */
    public static List<List<IrActivity>> bodies(IrActivity activity) {
        List<List<IrActivity>> bodies = new ArrayList<>();
        if (activity instanceof IrActivity.If i) {
            i.arms().forEach(arm -> bodies.add(arm.body()));
            bodies.add(i.otherwise());
        } else if (activity instanceof IrActivity.While w) {
            bodies.add(w.body());
        } else if (activity instanceof IrActivity.For f) {
            bodies.add(f.body());
        } else if (activity instanceof IrActivity.Sequence s) {
            bodies.add(s.body());
        } else if (activity instanceof IrActivity.Parallel p) {
            bodies.addAll(p.branches());
        }
        return bodies;
    }

    /** Visits every activity of {@code body} and of everything nested in it, in document order. */
    public static void forEachActivity(List<IrActivity> body, Consumer<IrActivity> visitor) {
        for (IrActivity activity : body) {
            visitor.accept(activity);
            for (List<IrActivity> nested : bodies(activity)) {
                forEachActivity(nested, visitor);
            }
        }
    }

    /** The expressions {@code activity} itself evaluates (not those of nested bodies), including target indices. */
    public static List<IrExpr> expressions(IrActivity activity) {
        List<IrExpr> out = new ArrayList<>();
        Consumer<IrExpr> add = e -> {
            if (e != null) {
                out.add(e);
            }
        };
        Consumer<IrTarget> target = t -> {
            if (t != null && t.index() != null) {
                out.add(t.index());
            }
        };
        if (activity instanceof IrActivity.Assign a) {
            target.accept(a.target());
            add.accept(a.value());
        } else if (activity instanceof IrActivity.If i) {
            i.arms().forEach(arm -> add.accept(arm.test()));
        } else if (activity instanceof IrActivity.While w) {
            add.accept(w.test());
        } else if (activity instanceof IrActivity.For f) {
            add.accept(f.from());
            add.accept(f.to());
            add.accept(f.step());
        } else if (activity instanceof IrActivity.Compute c) {
            c.inputs().forEach(add);
            c.outputs().forEach(target);
        } else if (activity instanceof IrActivity.Invoke i) {
            add.accept(i.endpoint());
            add.accept(i.input());
            target.accept(i.output());
        } else if (activity instanceof IrActivity.Send s) {
            add.accept(s.to());
            add.accept(s.data());
            add.accept(s.tag());
        } else if (activity instanceof IrActivity.ISend s) {
            add.accept(s.to());
            add.accept(s.data());
            add.accept(s.tag());
        } else if (activity instanceof IrActivity.Receive r) {
            add.accept(r.from());
            add.accept(r.tag());
            add.accept(r.timeout());
            target.accept(r.into());
            target.accept(r.source());
            target.accept(r.gottag());
        } else if (activity instanceof IrActivity.IRecv r) {
            add.accept(r.from());
            add.accept(r.tag());
            target.accept(r.into());
            target.accept(r.source());
            target.accept(r.gottag());
        } else if (activity instanceof IrActivity.SendRecv s) {
            add.accept(s.to());
            add.accept(s.data());
            add.accept(s.sendTag());
            add.accept(s.from());
            add.accept(s.recvTag());
            target.accept(s.into());
        } else if (activity instanceof IrActivity.Broadcast b) {
            add.accept(b.root());
        } else if (activity instanceof IrActivity.Scatter s) {
            add.accept(s.root());
            add.accept(s.data());
            target.accept(s.into());
        } else if (activity instanceof IrActivity.Gather g) {
            add.accept(g.root());
            add.accept(g.data());
            target.accept(g.into());
        } else if (activity instanceof IrActivity.Allgather g) {
            add.accept(g.data());
            target.accept(g.into());
        } else if (activity instanceof IrActivity.Alltoall a) {
            add.accept(a.data());
            target.accept(a.into());
        } else if (activity instanceof IrActivity.Reduce r) {
            add.accept(r.root());
            add.accept(r.data());
            target.accept(r.into());
        } else if (activity instanceof IrActivity.Allreduce r) {
            add.accept(r.data());
            target.accept(r.into());
        } else if (activity instanceof IrActivity.Scan s) {
            add.accept(s.data());
            target.accept(s.into());
        } else if (activity instanceof IrActivity.Split s) {
            add.accept(s.color());
            add.accept(s.key());
        } else if (activity instanceof IrActivity.Cartesian c) {
            c.dims().forEach(add);
            c.periodic().forEach(add);
        } else if (activity instanceof IrActivity.Output o) {
            add.accept(o.value());
        } else if (activity instanceof IrActivity.Log l) {
            add.accept(l.message());
        } else if (activity instanceof IrActivity.Progress p) {
            add.accept(p.value());
            add.accept(p.total());
        } else if (activity instanceof IrActivity.Fail f) {
            add.accept(f.message());
        } else if (activity instanceof IrActivity.Checkpoint c) {
            add.accept(c.every());
        }
        return out;
    }

    /**
     * The slots {@code activity} itself stores into (not those of nested bodies): assignment, receive and
     * collective targets, a receive's {@code source}/{@code gottag}, kernel and {@code invoke} outputs.
     */
    public static List<IrTarget> targets(IrActivity activity) {
        List<IrTarget> out = new ArrayList<>();
        Consumer<IrTarget> add = t -> {
            if (t != null) {
                out.add(t);
            }
        };
        if (activity instanceof IrActivity.Assign a) {
            add.accept(a.target());
        } else if (activity instanceof IrActivity.Compute c) {
            c.outputs().forEach(add);
        } else if (activity instanceof IrActivity.Invoke i) {
            add.accept(i.output());
        } else if (activity instanceof IrActivity.Receive r) {
            add.accept(r.into());
            add.accept(r.source());
            add.accept(r.gottag());
        } else if (activity instanceof IrActivity.IRecv r) {
            add.accept(r.into());
            add.accept(r.source());
            add.accept(r.gottag());
        } else if (activity instanceof IrActivity.SendRecv s) {
            add.accept(s.into());
        } else if (activity instanceof IrActivity.Broadcast b) {
            add.accept(b.variable());
        } else if (activity instanceof IrActivity.Scatter s) {
            add.accept(s.into());
        } else if (activity instanceof IrActivity.Gather g) {
            add.accept(g.into());
        } else if (activity instanceof IrActivity.Allgather g) {
            add.accept(g.into());
        } else if (activity instanceof IrActivity.Alltoall a) {
            add.accept(a.into());
        } else if (activity instanceof IrActivity.Reduce r) {
            add.accept(r.into());
        } else if (activity instanceof IrActivity.Allreduce r) {
            add.accept(r.into());
        } else if (activity instanceof IrActivity.Scan s) {
            add.accept(s.into());
        }
        return out;
    }

    /** The sub-expressions of {@code expr} (direct children only). */
    public static List<IrExpr> children(IrExpr expr) {
        if (expr instanceof IrExpr.Unary u) {
            return List.of(u.operand());
        } else if (expr instanceof IrExpr.Binary b) {
            return List.of(b.left(), b.right());
        } else if (expr instanceof IrExpr.Conditional c) {
            return List.of(c.test(), c.ifTrue(), c.ifFalse());
        } else if (expr instanceof IrExpr.Index i) {
            return List.of(i.array(), i.index());
        } else if (expr instanceof IrExpr.Slice s) {
            return List.of(s.array(), s.from(), s.to());
        } else if (expr instanceof IrExpr.Call c) {
            return c.arguments();
        } else if (expr instanceof IrExpr.ArrayOf a) {
            return a.elements();
        } else if (expr instanceof IrExpr.Convert c) {
            return List.of(c.operand());
        }
        return List.of();
    }

    /** Every name {@code expr} reads (params, variables, loop variables, built-in identifiers), in order of appearance. */
    public static List<IrExpr.Ref> references(IrExpr expr) {
        List<IrExpr.Ref> refs = new ArrayList<>();
        Deque<IrExpr> pending = new ArrayDeque<>();
        pending.push(expr);
        while (!pending.isEmpty()) {
            IrExpr e = pending.pop();
            if (e instanceof IrExpr.Ref r) {
                refs.add(r);
            }
            List<IrExpr> children = children(e);
            for (int i = children.size() - 1; i >= 0; i--) {
                pending.push(children.get(i));
            }
        }
        return refs;
    }

    /** Whether {@code expr} calls a built-in that asks the environment (communicators, process layout). */
    public static boolean usesRuntime(IrExpr expr) {
        Deque<IrExpr> pending = new ArrayDeque<>();
        pending.push(expr);
        while (!pending.isEmpty()) {
            IrExpr e = pending.pop();
            if (e instanceof IrExpr.Call c && c.function().needsRuntime()) {
                return true;
            }
            children(e).forEach(pending::push);
        }
        return false;
    }
}
