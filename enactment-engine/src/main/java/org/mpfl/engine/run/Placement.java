package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.protocol.RunRequest.ProcessSlice;

/**
 * Maps the ranks of each process onto hosts that can run its service type, round robin weighted by
 * capacity: hosts are visited in turn and each takes ranks while it has free capacity (counted
 * across all processes of the run and, with a {@link Load}, the ranks other live runs hold there).
 * When every candidate is full, further ranks are spread round robin over the hosts that allow
 * oversubscription (all of them when the run asks for it, as mpirun's {@code --oversubscribe});
 * when none does, the run does not fit now: {@link NoRoomException}, and nothing is placed (gang
 * placement: a run never holds part of its ranks).
 */
public final class Placement {
    private Placement() {
    }

    /**
     * Why a run cannot be placed on an engine with no host registered, and how to get one; an engine with a capacity
     * provider says what the provider is doing instead (RunQueue), since it starts the hosts.
     */
    public static final String NO_HOSTS = "no service hosts are registered (enrol one: mpflc host-token --engine URL -o F, then"
            + " mpflc host --credential-file F; or start local ones with mpflc up --hosts N)";

    /** Raised when some process has no host able to run it. */
    public static class PlacementException extends Exception {
        private static final long serialVersionUID = 1L;

        public PlacementException(String message) {
            super(message);
        }
    }

    /**
     * The ranks other live runs hold per host id, whether this run may exceed capacities, and how many
     * of its ranks each site may take.
     *
     * @param busy          host id → ranks of other live runs there
     * @param oversubscribe whether every host may take more ranks than its capacity for this run
     * @param siteQuota     site → the most ranks of this run placed there while hosts have room (empty: no
     *                      bound; {@link SitePlacement} splits a run asked to span sites with it)
     */
    public record Load(Map<String, Integer> busy, boolean oversubscribe, Map<String, Integer> siteQuota) {
        /** No other run, and capacities are a preference only (how placement worked before the run queue). */
        public static final Load NONE = new Load(Map.of(), true);

        public Load {
            busy = Map.copyOf(busy);
            siteQuota = Map.copyOf(siteQuota);
        }

        /** Without site quotas. */
        public Load(Map<String, Integer> busy, boolean oversubscribe) {
            this(busy, oversubscribe, Map.of());
        }

        Load withSiteQuota(Map<String, Integer> quota) {
            return new Load(busy, oversubscribe, quota);
        }

        private boolean siteHasRoom(HostInfo h, Map<String, Integer> placedPerSite) {
            Integer quota = siteQuota.get(h.site());
            return quota == null || placedPerSite.getOrDefault(h.site(), 0) < quota;
        }
    }

    /**
     * Every host able to run some process is kept out (quarantined, faulty for this run, or behind a relay that cannot
     * reach it now); nothing was placed. {@link #keptOut} names them, for the caller to tell a lasting cause from one
     * that ends by itself within seconds.
     */
    public static final class NoCapacityException extends PlacementException {
        private static final long serialVersionUID = 1L;
        private final List<String> keptOut;

        public NoCapacityException(String message, List<String> keptOut) {
            super(message);
            this.keptOut = List.copyOf(keptOut);
        }

        /** The ids of the hosts that could run the process but are kept out. */
        public List<String> keptOut() {
            return keptOut;
        }
    }

    /** The run's ranks do not all fit in the free capacity now (it may wait in the queue); nothing was placed. */
    public static final class NoRoomException extends PlacementException {
        private static final long serialVersionUID = 1L;

        public NoRoomException(String message) {
            super(message);
        }
    }

    /**
     * Places every rank of processes with known rank counts (in rank order).
     *
     * @param processes  the processes in document order
     * @param hosts      live hosts
     * @param canRun     whether a host can run a service type (offers it, or it can be deployed there)
     */
    public static List<RankPlacement> place(List<ProcessSlice> processes, List<HostInfo> hosts,
                                            BiPredicate<HostInfo, String> canRun)
            throws PlacementException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, String> services = new HashMap<>();
        for (ProcessSlice p : processes) {
            if (counts.put(p.name(), p.ranks()) != null) {
                throw new IllegalArgumentException("process '" + p.name() + "' is given twice");
            }
            services.put(p.name(), p.service());
        }
        return place(ProcessLayout.ofCounts(counts), services, hosts, canRun);
    }

    /**
     * Places every rank.
     *
     * @param layout     which world ranks belong to which process
     * @param services   the service type of each process
     * @param hosts      live hosts
     * @param canRun     whether a host can run a service type (offers it, or it can be deployed there)
     */
    public static List<RankPlacement> place(ProcessLayout layout, Map<String, String> services, List<HostInfo> hosts,
                                            BiPredicate<HostInfo, String> canRun)
            throws PlacementException {
        return place(layout, services, hosts, canRun, Map.of());
    }

    /**
     * Places every rank on hosts that are not unavailable.
     *
     * @param layout      which world ranks belong to which process
     * @param services    the service type of each process
     * @param hosts       live hosts, including unavailable ones (they are named when no capacity is left)
     * @param canRun      whether a host can run a service type (offers it, or it can be deployed there)
     * @param unavailable hosts that must not get ranks, by id, with why (e.g. "quarantined until … (deploy refused)")
     * @throws PlacementException when a process has no host; with {@code "no capacity: "} and every
     *                            unavailable host that could have run it when only those are left
     */
    public static List<RankPlacement> place(ProcessLayout layout, Map<String, String> services, List<HostInfo> hosts,
                                            BiPredicate<HostInfo, String> canRun, Map<String, String> unavailable)
            throws PlacementException {
        return place(layout, services, hosts, canRun, unavailable, (h, service) -> service);
    }

    /**
     * Places every rank on hosts that are not unavailable, where a service may have another name on
     * some hosts (a workflow's services are deployed under qualified names, but a static host-file
     * entry offers only what was installed on it by hand, under the plain type name).
     *
     * @param nameOnHost the name of a process's service on a host: the rank's service and endpoint use it
     * @see #place(ProcessLayout, Map, List, BiPredicate, Map)
     */
    public static List<RankPlacement> place(ProcessLayout layout, Map<String, String> services, List<HostInfo> hosts,
                                            BiPredicate<HostInfo, String> canRun, Map<String, String> unavailable,
                                            BiFunction<HostInfo, String, String> nameOnHost)
            throws PlacementException {
        return place(layout, services, hosts, canRun, unavailable, nameOnHost, Load.NONE);
    }

    /**
     * Places every rank where there is room for it beside the ranks of other live runs.
     *
     * @param load the ranks of other runs per host, and whether this run oversubscribes
     * @throws NoRoomException when some ranks do not fit (and no host may be oversubscribed): the message
     *                         says, per process short of room, how many ranks it needs and how many places are free
     * @see #place(ProcessLayout, Map, List, BiPredicate, Map, BiFunction)
     */
    public static List<RankPlacement> place(ProcessLayout layout, Map<String, String> services, List<HostInfo> hosts,
                                            BiPredicate<HostInfo, String> canRun, Map<String, String> unavailable,
                                            BiFunction<HostInfo, String, String> nameOnHost, Load load)
            throws PlacementException {
        if (hosts.isEmpty()) {
            throw new PlacementException(NO_HOSTS);
        }
        Map<String, Integer> used = new HashMap<>(load.busy());
        List<String> shortOf = new ArrayList<>();
        Map<String, Integer> cursor = new HashMap<>();
        Map<String, Integer> overflow = new HashMap<>();
        Map<String, Integer> perSite = new HashMap<>();
        List<RankPlacement> out = new ArrayList<>();
        for (String process : layout.processes()) {
            String service = services.get(process);
            Predicate<HostInfo> ok = h -> canRun.test(h, service);
            List<HostInfo> able = hosts.stream().filter(ok).toList();
            if (able.isEmpty()) {
                throw new PlacementException("no registered host offers service '" + service + "' for process '"
                        + process + "' and no archive is deployed for it (mpflc deploy FILE --engine URL)");
            }
            List<HostInfo> candidates = able.stream().filter(h -> !unavailable.containsKey(h.hostId())).toList();
            if (candidates.isEmpty()) {
                int n = layout.count(process);
                throw new NoCapacityException("no capacity: " + n + " rank" + (n == 1 ? "" : "s") + " of process '" + process
                        + "' (service '" + service + "') need hosts; " + String.join(", ", able.stream()
                        .map(h -> h.hostId() + " " + unavailable.get(h.hostId())).toList()),
                        able.stream().map(HostInfo::hostId).toList());
            }
            List<HostInfo> overflowHosts = load.oversubscribe() ? candidates
                    : candidates.stream().filter(HostInfo::oversubscribe).toList();
            int freeBefore = free(candidates, used);
            int start = cursor.getOrDefault(service, 0);
            for (int i = 0; i < layout.count(process); i++) {
                HostInfo chosen = null;
                for (int k = 0; k < candidates.size(); k++) {
                    HostInfo h = candidates.get((start + k) % candidates.size());
                    if (used.getOrDefault(h.hostId(), 0) < h.capacity() && load.siteHasRoom(h, perSite)) {
                        chosen = h;
                        // stay on this host while it has room: consecutive ranks share a host (cheap local messages)
                        start = (start + k) % candidates.size();
                        break;
                    }
                }
                if (chosen == null && overflowHosts.isEmpty()) {
                    int n = layout.count(process);
                    int slots = candidates.stream().mapToInt(HostInfo::capacity).sum();
                    // hosts that could run it but are kept out: a run waiting on them must say so, or it reads as
                    // waiting for hosts that are there (mpflc hosts shows them free)
                    List<String> keptOut = able.stream().filter(h -> unavailable.containsKey(h.hostId()))
                            .map(h -> h.hostId() + " " + unavailable.get(h.hostId())).toList();
                    shortOf.add("needs " + n + " rank" + (n == 1 ? "" : "s") + " of '" + process + "' (service '" + service
                            + "'); " + freeBefore + " free (capacity " + slots + " on " + candidates.size() + " host"
                            + (candidates.size() == 1 ? "" : "s") + " able to run it)" + (n > slots
                            ? ", more than they have in all: it waits for more hosts to join" + (keptOut.isEmpty() ? "" : " or"
                                    + " a kept-out host to come back") + ", unless it may oversubscribe (mpflc run --oversubscribe)"
                            : "") + (keptOut.isEmpty() ? "" : "; kept out: " + String.join("; ", keptOut)));
                    break;
                }
                if (chosen == null) {
                    // every candidate is full: spread the rest evenly over those that may be oversubscribed, first host first
                    int over = overflow.merge(service, 1, Integer::sum) - 1;
                    chosen = overflowHosts.get(over % overflowHosts.size());
                }
                used.merge(chosen.hostId(), 1, Integer::sum);
                perSite.merge(chosen.site(), 1, Integer::sum);
                String onHost = nameOnHost.apply(chosen, service);
                out.add(new RankPlacement(layout.first(process) + i, process, onHost, chosen.hostId(), chosen.endpoint(onHost)));
            }
            cursor.put(service, start);
        }
        if (!shortOf.isEmpty()) {
            throw new NoRoomException(String.join("; ", shortOf));
        }
        return out;
    }

    /** Places free on these hosts with {@code used} ranks on them. */
    private static int free(List<HostInfo> hosts, Map<String, Integer> used) {
        return hosts.stream().mapToInt(h -> Math.max(0, h.capacity() - used.getOrDefault(h.hostId(), 0))).sum();
    }
}
