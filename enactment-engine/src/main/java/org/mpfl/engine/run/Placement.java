package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.RunRequest.ProcessSlice;

/**
 * Maps the ranks of each process onto hosts that can run its service type, round robin weighted by
 * capacity: hosts are visited in turn and each takes ranks while it has free capacity (counted
 * across all processes of the run); when every candidate is full, further ranks are spread round
 * robin again (oversubscription, like mpirun without --nooversubscribe).
 */
public final class Placement {
    private Placement() {
    }

    /** Raised when some process has no host able to run it. */
    public static final class PlacementException extends Exception {
        private static final long serialVersionUID = 1L;

        public PlacementException(String message) {
            super(message);
        }
    }

    /**
     * Places every rank.
     *
     * @param processes  the processes in document order
     * @param hosts      live hosts
     * @param canRun     whether a host can run a service type (offers it, or it can be deployed there)
     */
    public static List<RankPlacement> place(List<ProcessSlice> processes, List<HostInfo> hosts,
                                            java.util.function.BiPredicate<HostInfo, String> canRun)
            throws PlacementException {
        if (hosts.isEmpty()) {
            throw new PlacementException("no service hosts are registered (start some with 'mpflc host --engine URL' or give a host file)");
        }
        Map<String, Integer> used = new HashMap<>();
        Map<String, Integer> cursor = new HashMap<>();
        Map<String, Integer> overflow = new HashMap<>();
        List<RankPlacement> out = new ArrayList<>();
        int rank = 0;
        for (ProcessSlice p : processes) {
            Predicate<HostInfo> ok = h -> canRun.test(h, p.service());
            List<HostInfo> candidates = hosts.stream().filter(ok).toList();
            if (candidates.isEmpty()) {
                throw new PlacementException("no registered host offers service '" + p.service() + "' for process '"
                        + p.name() + "' and no archive is deployed for it (mpflc deploy FILE --engine URL)");
            }
            int start = cursor.getOrDefault(p.service(), 0);
            for (int i = 0; i < p.ranks(); i++) {
                HostInfo chosen = null;
                for (int k = 0; k < candidates.size(); k++) {
                    HostInfo h = candidates.get((start + k) % candidates.size());
                    if (used.getOrDefault(h.hostId(), 0) < h.capacity()) {
                        chosen = h;
                        // stay on this host while it has room: consecutive ranks share a host (cheap local messages)
                        start = (start + k) % candidates.size();
                        break;
                    }
                }
                if (chosen == null) {
                    // every candidate is full: spread the rest evenly, first host first
                    int over = overflow.merge(p.service(), 1, Integer::sum) - 1;
                    chosen = candidates.get(over % candidates.size());
                }
                used.merge(chosen.hostId(), 1, Integer::sum);
                out.add(new RankPlacement(rank++, p.name(), p.service(), chosen.hostId(),
                        new Endpoint(chosen.serviceUrl(p.service()), chosen.binaryAddress(), chosen.hostId())));
            }
            cursor.put(p.service(), start);
        }
        return out;
    }
}
