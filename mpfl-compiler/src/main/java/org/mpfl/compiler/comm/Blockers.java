package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.diag.SourceLocation;

/** The kinds of {@link Blocker}: requests (point-to-point), a collective, the branches of a parallel. */
final class Blockers {
    private Blockers() {
    }

    /** Waits until every request is complete (a blocking receive or synchronous send is one request). */
    record RequestWait(SourceLocation at, String activity, List<Request> requests, Consumer<RankThread> onResume)
            implements Blocker {
        @Override
        public boolean satisfied() {
            for (Request r : requests) {
                if (!r.complete) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String describe() {
            List<String> parts = new ArrayList<>();
            for (Request r : requests) {
                if (!r.complete) {
                    parts.add(r.kind == Request.Kind.RECEIVE
                            ? "a message from " + r.describePeer() + " (" + r.describeTag() + ", comm " + r.comm.name() + ")"
                            : "rank " + r.comm.world(r.peer) + " to receive its synchronous send (" + r.describeTag()
                                    + ", comm " + r.comm.name() + ")");
                }
            }
            return activity + " waits for " + String.join(" and ", parts);
        }

        @Override
        public List<Integer> waitsFor() {
            Set<Integer> ranks = new LinkedHashSet<>();
            for (Request r : requests) {
                if (r.complete) {
                    continue;
                }
                if (r.kind == Request.Kind.RECEIVE && r.peer == Communicator.ANY_SOURCE) {
                    for (int m : r.comm.members()) {
                        ranks.add(m);
                    }
                } else {
                    ranks.add(r.comm.world(r.peer));
                }
            }
            return new ArrayList<>(ranks);
        }

        @Override
        public void resume(RankThread thread) {
            if (onResume != null) {
                onResume.accept(thread);
            }
        }
    }

    /** Waits until every member of the communicator reached the same collective. */
    record CollectiveWait(CollectiveRendezvous.Slot slot, int commRank, Consumer<RankThread> onResume) implements Blocker {
        @Override
        public boolean satisfied() {
            return slot.completed;
        }

        @Override
        public SourceLocation at() {
            return slot.arrivals[commRank].activity().at();
        }

        @Override
        public String describe() {
            return "<" + IrActivity.elementName(slot.arrivals[commRank].activity()) + "> on comm " + slot.comm.name()
                    + " waits for " + CommunicationReporter.ranks(slot.missing());
        }

        @Override
        public List<Integer> waitsFor() {
            return slot.missing();
        }

        @Override
        public void resume(RankThread thread) {
            onResume.accept(thread);
        }
    }

    /** A parallel waits for its branches; the branches themselves are threads the scheduler runs. */
    record Join(SourceLocation at, List<RankThread> branches) implements Blocker {
        @Override
        public boolean satisfied() {
            for (RankThread b : branches) {
                if (!b.done) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String describe() {
            return "<parallel> waits for its branches";
        }

        @Override
        public List<Integer> waitsFor() {
            return List.of();
        }

        @Override
        public void resume(RankThread thread) {
            thread.rank.threads.removeAll(branches);
        }
    }
}
