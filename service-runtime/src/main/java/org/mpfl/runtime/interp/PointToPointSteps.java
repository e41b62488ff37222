package org.mpfl.runtime.interp;

import java.time.Duration;
import java.util.function.Supplier;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.ir.semantics.Addressing;
import org.mpfl.ir.semantics.Operands;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.Request;
import org.mpfl.runtime.topology.RankRuntime;

/**
 * send, receive, sendrecv, isend, irecv, wait and waitall over the rank's communicators. Peers are
 * checked before anything moves (−1 is MPI_PROC_NULL: the operation does nothing), received values
 * are fitted to the declared type of {@code into}, and every call that can block is reported to the
 * rank's {@link RankActivityMonitor} with what it waits for, in world ranks.
 */
final class PointToPointSteps {

    void execute(IrActivity a, Frame f) {
        if (a instanceof IrActivity.Send x) {
            send(x, f);
        } else if (a instanceof IrActivity.Receive x) {
            receive(x, f);
        } else if (a instanceof IrActivity.SendRecv x) {
            sendRecv(x, f);
        } else if (a instanceof IrActivity.ISend x) {
            isend(x, f);
        } else if (a instanceof IrActivity.IRecv x) {
            irecv(x, f);
        } else if (a instanceof IrActivity.Wait x) {
            await(x.request(), "wait", x.at(), f);
        } else if (a instanceof IrActivity.WaitAll x) {
            for (String request : x.requests()) {
                await(request, "waitall", x.at(), f);
            }
        } else {
            throw new IllegalStateException("not a point-to-point activity: " + a);
        }
    }

    private void send(IrActivity.Send x, Frame f) {
        Outgoing out = Outgoing.reached("send", x.at(), x.comm(), x.to(), x.tag(), x.data(), f);
        if (out.to() == Communicator.PROC_NULL) {
            return;
        }
        RankState rank = out.rank();
        Communicator comm = out.comm();
        int to = out.to();
        int tag = out.tag();
        Object value = out.value();
        boolean synchronous = x.mode() == IrActivity.SendMode.SYNCHRONOUS;
        RankActivityMonitor.Blocking b = rank.monitor().begin("send", x.at(),
                () -> out.describe(synchronous)
                        + (synchronous ? " (waiting for the receiver to match it)" : " (receiver's buffer full)"))
                .peer(rank.runtime().worldRankOf(comm, to), tag);
        try {
            if (synchronous) {
                comm.ssend(value, to, tag);
            } else {
                comm.send(value, to, tag);
            }
            rank.messages().sent();
        } finally {
            rank.monitor().end(b);
        }
    }

    private void receive(IrActivity.Receive x, Frame f) {
        Incoming in = Incoming.of(x.comm(), x.from(), x.tag(), f);
        RankState rank = in.rank();
        Communicator comm = in.comm();
        int from = in.from();
        int tag = in.tag();
        Duration timeout = null;
        if (x.timeout() != null) {
            long ms = ((Number) ExpressionEvaluator.evaluate(x.timeout(), f)).longValue();
            if (ms < 0) {
                throw new RuntimeFault(x.timeout().at(), "timeout is " + ms + " ms; it must be at least 0");
            }
            timeout = Duration.ofMillis(ms);
        }
        rank.monitor().reached("receive", x.at());
        Message m;
        if (from == Communicator.PROC_NULL) {
            m = new Message(Communicator.PROC_NULL, Communicator.ANY_TAG, null);
        } else {
            RankActivityMonitor.Blocking b = rank.monitor().begin("receive", x.at(),
                    receiveText(rank.runtime(), comm, from, tag, ""));
            try {
                m = timeout == null ? comm.recv(from, tag) : comm.recv(from, tag, timeout);
                b.peer(m.source() >= 0 ? rank.runtime().worldRankOf(comm, m.source()) : -1, m.tag());
            } finally {
                rank.monitor().end(b);
            }
            rank.messages().received();
        }
        deliver(m, from == Communicator.PROC_NULL, x.into(), x.source(), x.gottag(), f);
    }

    private void sendRecv(IrActivity.SendRecv x, Frame f) {
        RankState rank = f.rank();
        Communicator comm = rank.communicators().get(x.comm());
        Operands ops = Operands.in(f);
        int to = Addressing.destination(x.to(), ops, comm.name(), comm.size());
        int sendTag = Addressing.sendTag(x.sendTag(), ops);
        int from = Addressing.source(x.from(), ops, comm.name(), comm.size());
        int recvTag = Addressing.receiveTag(x.recvTag(), ops);
        Object value = ExpressionEvaluator.evaluate(x.data(), f);
        rank.monitor().reached("sendrecv", x.at());
        Message m;
        RankActivityMonitor.Blocking b = rank.monitor().begin("sendrecv", x.at(), receiveText(rank.runtime(), comm, from,
                recvTag, to == Communicator.PROC_NULL ? " (sendrecv)"
                        : " (sendrecv, sending to " + describePeer(rank.runtime(), comm, to) + " tag " + sendTag + ")"));
        if (to != Communicator.PROC_NULL) {
            b.peer(rank.runtime().worldRankOf(comm, to), sendTag);
        }
        try {
            m = comm.sendrecv(value, to, sendTag, from, recvTag);
            if (from != Communicator.PROC_NULL && m.source() >= 0) {
                b.source(rank.runtime().worldRankOf(comm, m.source()), m.tag()); // the trace's arrow into this rank
            }
        } finally {
            rank.monitor().end(b);
        }
        if (to != Communicator.PROC_NULL) {
            rank.messages().sent();
        }
        if (from != Communicator.PROC_NULL) {
            rank.messages().received();
        }
        deliver(m, from == Communicator.PROC_NULL, x.into(), null, null, f);
    }

    private void isend(IrActivity.ISend x, Frame f) {
        Outgoing out = Outgoing.reached("isend", x.at(), x.comm(), x.to(), x.tag(), x.data(), f);
        boolean synchronous = x.mode() == IrActivity.SendMode.SYNCHRONOUS;
        Request r = synchronous ? out.comm().issend(out.value(), out.to(), out.tag())
                : out.comm().isend(out.value(), out.to(), out.tag());
        boolean peerNull = out.to() == Communicator.PROC_NULL;
        if (!peerNull) {
            out.rank().messages().sent();
        }
        Supplier<String> what = () -> "request " + x.request() + ": " + out.describe(synchronous);
        out.rank().requests().start(x.request(), new PendingRequests.Pending(x, r, what, peerNull));
    }

    private void irecv(IrActivity.IRecv x, Frame f) {
        Incoming in = Incoming.of(x.comm(), x.from(), x.tag(), f);
        RankState rank = in.rank();
        Communicator comm = in.comm();
        int from = in.from();
        int tag = in.tag();
        rank.monitor().reached("irecv", x.at());
        Request r = comm.irecv(from, tag);
        Supplier<String> receive = receiveText(rank.runtime(), comm, from, tag, " (request " + x.request() + ")");
        rank.requests().start(x.request(), new PendingRequests.Pending(x, r, receive, from == Communicator.PROC_NULL));
    }

    private void await(String request, String activity, SourceLocation at, Frame f) {
        RankState rank = f.rank();
        PendingRequests.Pending p = rank.requests().take(request);
        rank.monitor().reached(activity, at);
        if (p == null) {
            return; // never started, or already waited for: MPI's null request
        }
        Message m;
        RankActivityMonitor.Blocking b = rank.monitor().begin(activity, at, p.waitingFor());
        try {
            m = p.request().await();
        } catch (org.mpfl.runtime.api.DomainAbortedException e) {
            throw e;
        } catch (RuntimeException e) {
            // say which operation failed: the wait is where it surfaced, the isend/irecv is what it was
            throw Faults.at(activity, at, relabel(e, request, p));
        } finally {
            rank.monitor().end(b);
        }
        if (p.origin() instanceof IrActivity.IRecv x) {
            if (!p.peerNull()) {
                rank.messages().received();
            }
            deliver(m, p.peerNull(), x.into(), x.source(), x.gottag(), f);
        }
    }

    /**
     * A send's (send, isend) operands, worked out in the order a fault must surface: peer, tag, then
     * the value; then the activity is reported reached.
     */
    private record Outgoing(RankState rank, Communicator comm, int to, int tag, Object value) {
        static Outgoing reached(String activity, SourceLocation at, String commName, IrExpr toExpr, IrExpr tagExpr,
                                IrExpr data, Frame f) {
            RankState rank = f.rank();
            Communicator comm = rank.communicators().get(commName);
            Operands ops = Operands.in(f);
            int to = Addressing.destination(toExpr, ops, comm.name(), comm.size());
            int tag = Addressing.sendTag(tagExpr, ops);
            Object value = ExpressionEvaluator.evaluate(data, f);
            rank.monitor().reached(activity, at);
            return new Outgoing(rank, comm, to, tag, value);
        }

        /** {@code send to 3 tag 0 comm world} ({@code ssend to …} when synchronous). */
        String describe(boolean synchronous) {
            return (synchronous ? "ssend to " : "send to ") + describePeer(rank.runtime(), comm, to) + " tag " + tag
                    + " comm " + comm.name();
        }
    }

    /** A receive's (receive, irecv) peer and tag. */
    private record Incoming(RankState rank, Communicator comm, int from, int tag) {
        static Incoming of(String commName, IrExpr fromExpr, IrExpr tagExpr, Frame f) {
            RankState rank = f.rank();
            Communicator comm = rank.communicators().get(commName);
            Operands ops = Operands.in(f);
            return new Incoming(rank, comm, Addressing.source(fromExpr, ops, comm.name(), comm.size()),
                    Addressing.receiveTag(tagExpr, ops));
        }
    }

    /** The same failure, its message prefixed with the request and where it was started. */
    private static RuntimeException relabel(RuntimeException e, String request, PendingRequests.Pending p) {
        String prefix = "request '" + request + "' (started at " + p.at() + "): ";
        if (e instanceof org.mpfl.runtime.api.ReceiveTimeoutException t) {
            return new org.mpfl.runtime.api.ReceiveTimeoutException(prefix + t.getMessage());
        }
        if (e instanceof org.mpfl.runtime.api.DeliveryException d) {
            return new org.mpfl.runtime.api.DeliveryException(prefix + d.getMessage(), d.getCause());
        }
        return new RuntimeFault(null, prefix + (e.getMessage() == null ? e.toString() : e.getMessage()));
    }

    /** Stores a received message: the value into {@code into}, its source and tag into the optional targets. */
    private static void deliver(Message m, boolean peerNull, IrTarget into, IrTarget source, IrTarget gottag, Frame f) {
        RankState rank = f.rank();
        if (!peerNull) {
            rank.store(into, m.value(), false, f, "received value (from rank " + m.source() + " tag " + m.tag() + ")");
        }
        if (source != null) {
            rank.store(source, m.source(), false, f, "source");
        }
        if (gottag != null) {
            rank.store(gottag, m.tag(), false, f, "tag");
        }
    }

    private static Supplier<String> receiveText(RankRuntime runtime, Communicator comm, int from, int tag, String suffix) {
        return () -> "receive from " + (from == Communicator.ANY_SOURCE ? "any rank" : describePeer(runtime, comm, from))
                + " tag " + (tag == Communicator.ANY_TAG ? "any" : String.valueOf(tag)) + " comm " + comm.name() + suffix;
    }

    /** A peer named by its world rank (what the engine's wait-for graph uses), with its rank in {@code comm} if different. */
    static String describePeer(RankRuntime runtime, Communicator comm, int peer) {
        if (peer == Communicator.PROC_NULL) {
            return "nobody (-1)";
        }
        int world = runtime.worldRankOf(comm, peer);
        return world == peer ? String.valueOf(world) : world + " (rank " + peer + " of " + comm.name() + ")";
    }
}
