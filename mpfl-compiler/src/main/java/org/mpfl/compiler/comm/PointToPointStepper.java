package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.semantics.Addressing;
import org.mpfl.ir.semantics.Operands;

/**
 * Point-to-point activities of the symbolic run: sends and receives (blocking, combined and
 * non-blocking) become {@link Request}s for the {@link MessageMatcher}, a blocking one leaves a
 * {@link Blocker} on its thread, and a completed receive stores what the check knows of the message
 * (its value is run-time data; its source and tag may be known).
 */
final class PointToPointStepper {
    private final MessageMatcher matcher;
    private final SymbolicValues values;

    PointToPointStepper(MessageMatcher matcher, SymbolicValues values) {
        this.matcher = matcher;
        this.values = values;
    }

    /** One point-to-point activity, a {@code wait} or a {@code waitall} of {@code t}. */
    void step(IrActivity a, RankThread t) {
        SymbolicRank rank = t.rank;
        Operands ops = SymbolicValues.operands(t, a);
        if (a instanceof IrActivity.Send x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int to = Addressing.destination(x.to(), ops, comm.name(), comm.size());
            int tag = Addressing.sendTag(x.tag(), ops);
            values.evaluateData(x.data(), t);
            if (to != Communicator.PROC_NULL) {
                Request message = new Request(Request.Kind.SEND, rank, comm, to, tag,
                        x.mode() == IrActivity.SendMode.SYNCHRONOUS, a, x.at());
                matcher.send(message);
                if (!message.complete) {
                    t.blocker = new Blockers.RequestWait(x.at(), "synchronous <send>", List.of(message), null);
                }
            }
        } else if (a instanceof IrActivity.Receive x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int from = Addressing.source(x.from(), ops, comm.name(), comm.size());
            int tag = Addressing.receiveTag(x.tag(), ops);
            if (from == Communicator.PROC_NULL) {
                deliverFromNobody(t, x.source(), x.gottag());
                return;
            }
            Request receive = new Request(Request.Kind.RECEIVE, rank, comm, from, tag, false, a, x.at());
            matcher.receive(receive);
            t.blocker = new Blockers.RequestWait(x.at(), "<receive>", List.of(receive),
                    thread -> deliver(thread, receive, x.into(), x.source(), x.gottag()));
        } else if (a instanceof IrActivity.SendRecv x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int to = Addressing.destination(x.to(), ops, comm.name(), comm.size());
            int sendTag = Addressing.sendTag(x.sendTag(), ops);
            int from = Addressing.source(x.from(), ops, comm.name(), comm.size());
            int recvTag = Addressing.receiveTag(x.recvTag(), ops);
            values.evaluateData(x.data(), t);
            Request receive = null;
            if (from != Communicator.PROC_NULL) {
                receive = new Request(Request.Kind.RECEIVE, rank, comm, from, recvTag, false, a, x.at());
                matcher.receive(receive);
            }
            if (to != Communicator.PROC_NULL) {
                matcher.send(new Request(Request.Kind.SEND, rank, comm, to, sendTag, false, a, x.at()));
            }
            if (receive != null) {
                Request r = receive;
                t.blocker = new Blockers.RequestWait(x.at(), "<sendrecv>", List.of(receive),
                        thread -> deliver(thread, r, x.into(), null, null));
            }
        } else if (a instanceof IrActivity.ISend x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int to = Addressing.destination(x.to(), ops, comm.name(), comm.size());
            int tag = Addressing.sendTag(x.tag(), ops);
            values.evaluateData(x.data(), t);
            rank.requests().remove(x.request());
            if (to != Communicator.PROC_NULL) {
                Request message = new Request(Request.Kind.SEND, rank, comm, to, tag,
                        x.mode() == IrActivity.SendMode.SYNCHRONOUS, a, x.at());
                matcher.send(message);
                rank.requests().put(x.request(), message);
            }
        } else if (a instanceof IrActivity.IRecv x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int from = Addressing.source(x.from(), ops, comm.name(), comm.size());
            int tag = Addressing.receiveTag(x.tag(), ops);
            rank.requests().remove(x.request());
            if (from == Communicator.PROC_NULL) {
                deliverFromNobody(t, x.source(), x.gottag());
                return;
            }
            Request receive = new Request(Request.Kind.RECEIVE, rank, comm, from, tag, false, a, x.at());
            matcher.receive(receive);
            rank.requests().put(x.request(), receive);
        } else if (a instanceof IrActivity.Wait x) {
            await(t, a, List.of(x.request()));
        } else if (a instanceof IrActivity.WaitAll x) {
            await(t, a, x.requests());
        }
    }

    private void await(RankThread t, IrActivity a, List<String> names) {
        List<Request> requests = new ArrayList<>();
        for (String name : names) {
            Request r = t.rank.requests().remove(name);
            if (r != null) { // a request never started or already waited for is MPI's null request
                requests.add(r);
            }
        }
        if (requests.isEmpty()) {
            return;
        }
        t.blocker = new Blockers.RequestWait(a.at(), "<" + IrActivity.elementName(a) + ">", requests, thread -> {
            for (Request r : requests) {
                if (r.origin instanceof IrActivity.IRecv x) {
                    deliver(thread, r, x.into(), x.source(), x.gottag());
                }
            }
        });
    }

    private void deliver(RankThread t, Request receive, IrTarget into, IrTarget source, IrTarget gottag) {
        values.storeValue(t, into, new Unknown(into.variable(), "received at " + receive.at));
        if (source != null) {
            values.storeValue(t, source, receive.peer == Communicator.ANY_SOURCE
                    ? new Unknown(source.variable(), "the sender of the receive from any rank at " + receive.at)
                    : (Object) receive.peer);
        }
        if (gottag != null) {
            values.storeValue(t, gottag, receive.tag == Communicator.ANY_TAG
                    ? new Unknown(gottag.variable(), "the tag of the receive of any tag at " + receive.at)
                    : (Object) receive.tag);
        }
    }

    private void deliverFromNobody(RankThread t, IrTarget source, IrTarget gottag) {
        if (source != null) {
            values.storeValue(t, source, Communicator.PROC_NULL);
        }
        if (gottag != null) {
            values.storeValue(t, gottag, Communicator.ANY_TAG);
        }
    }
}
