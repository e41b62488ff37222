package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.ir.eval.ProcessLayout;

/**
 * Site-aware placement over {@link Placement}: a run's ranks are packed within one site while capacity
 * allows, since messages between sites cross a WAN link, a NAT gateway or a relay. Without a
 * {@link SiteRequest} the run goes to the site with the fewest free slots that still holds all of it (best
 * fit: large holes stay for large runs); when no one site can, it spans sites, filling those with the most
 * free slots first so that as few sites as possible share it. A request places it on the sites asked
 * for, split in contiguous blocks of ranks as evenly as their free slots allow. Placement stays
 * all-or-nothing; the choice and its reason go into the run record ({@link Placed#toJson()}).
 */
final class SitePlacement {
    private SitePlacement() {
    }

    /**
     * A run's placement and how its sites were chosen.
     *
     * @param ranks  where each rank runs
     * @param sites  the sites its ranks are in, in the order of their lowest rank
     * @param reason why these sites, readable by a user ({@code null} when every host is in one site and
     *               nothing was asked: there was no choice)
     */
    record Placed(List<RankPlacement> ranks, List<String> sites, String reason) {
        /** The run record's {@code placement}: {@code {sites: [...], reason: "..."}}. */
        Map<String, Object> toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("sites", sites);
            m.put("reason", reason);
            return m;
        }
    }

    /**
     * Places every rank, choosing the sites first.
     *
     * @param request the sites the run asks for, or {@code null} (pack within one site while it fits)
     * @see Placement#place(ProcessLayout, Map, List, BiPredicate, Map, BiFunction, Placement.Load)
     */
    static Placed place(ProcessLayout layout, Map<String, String> services, List<HostInfo> hosts,
                        BiPredicate<HostInfo, String> canRun, Map<String, String> unavailable,
                        BiFunction<HostInfo, String, String> nameOnHost, Placement.Load load, SiteRequest request)
            throws Placement.PlacementException {
        int need = layout.worldSize();
        Set<String> runServices = new LinkedHashSet<>(services.values());
        // free slots per site, on the hosts that could take some rank of this run now
        Map<String, Integer> free = new TreeMap<>();
        for (HostInfo h : hosts) {
            if (!unavailable.containsKey(h.hostId()) && runServices.stream().anyMatch(s -> canRun.test(h, s))) {
                free.merge(h.site(), Math.max(0, h.capacity() - load.busy().getOrDefault(h.hostId(), 0)), Integer::sum);
            }
        }
        if (request == null && free.size() <= 1) {
            return placed(Placement.place(layout, services, hosts, canRun, unavailable, nameOnHost, load), null);
        }
        if (request != null) {
            return asked(layout, services, hosts, canRun, unavailable, nameOnHost, load, request, free, need);
        }
        List<String> fitting = free.entrySet().stream().filter(e -> e.getValue() >= need)
                .sorted(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).toList();
        for (String site : fitting) {
            try {
                List<RankPlacement> ranks = Placement.place(layout, services, inSites(hosts, List.of(site)), canRun, unavailable,
                        nameOnHost, load);
                return placed(ranks, "packed in site " + site + " (" + need + " of " + free.get(site) + " free slots)");
            } catch (Placement.PlacementException e) {
                // some process has no host able to run it in this site: try the next one, then span sites
            }
        }
        List<String> order = free.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).toList();
        List<String> everySite = new ArrayList<>(order);
        // hosts kept out (quarantined, unable) last: Placement names them when nothing else is left
        hosts.stream().map(HostInfo::site).distinct().sorted().filter(s -> !everySite.contains(s)).forEach(everySite::add);
        List<RankPlacement> ranks = Placement.place(layout, services, inSites(hosts, everySite), canRun, unavailable, nameOnHost,
                load);
        List<String> used = sitesOf(ranks);
        String why = fitting.isEmpty()
                ? "no one site has " + need + " free slots (" + freeText(free) + ")"
                : "no one site with " + need + " free slots has hosts for every process (" + freeText(free) + ")";
        return new Placed(ranks, used, (used.size() == 1 ? "packed in site " + used.get(0) : "spans sites " + String.join(",", used))
                + ": " + why);
    }

    /** A run that asked for sites: those sites only, split evenly in the order given. */
    private static Placed asked(ProcessLayout layout, Map<String, String> services, List<HostInfo> hosts,
                                BiPredicate<HostInfo, String> canRun, Map<String, String> unavailable,
                                BiFunction<HostInfo, String, String> nameOnHost, Placement.Load load, SiteRequest request,
                                Map<String, Integer> free, int need) throws Placement.PlacementException {
        List<String> chosen;
        if (request.count() > 0) {
            if (request.count() > free.size()) {
                throw new Placement.PlacementException("sites=" + request + " asks for " + request.count() + " sites; the hosts"
                        + " able to run this run are in " + free.size() + ": " + String.join(", ", free.keySet()));
            }
            chosen = free.entrySet().stream()
                    .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                    .limit(request.count()).map(Map.Entry::getKey).toList();
        } else {
            Set<String> known = new TreeSet<>();
            hosts.forEach(h -> known.add(h.site()));
            for (String site : request.names()) {
                if (!known.contains(site)) {
                    throw new Placement.PlacementException("sites=" + request + ": no registered host is in site '" + site
                            + "' (sites: " + String.join(", ", known) + ")");
                }
            }
            chosen = request.names();
        }
        Map<String, Integer> quota = split(need, chosen, free, load.oversubscribe());
        List<RankPlacement> ranks = Placement.place(layout, services, inSites(hosts, chosen), canRun, unavailable, nameOnHost,
                chosen.size() == 1 ? load : load.withSiteQuota(quota));
        Map<String, Integer> count = new LinkedHashMap<>();
        ranks.forEach(r -> count.merge(r.endpoint().site(), 1, Integer::sum));
        String asked = "as asked (sites=" + request + ")";
        if (chosen.size() == 1) {
            return placed(ranks, "packed in site " + chosen.get(0) + " " + asked + " (" + need + " of " + free.getOrDefault(chosen.get(0), 0)
                    + " free slots)");
        }
        return placed(ranks, "spans sites " + String.join(",", chosen) + " " + asked + ": " + String.join(", ",
                count.entrySet().stream().map(e -> e.getKey() + " " + e.getValue() + " rank" + (e.getValue() == 1 ? "" : "s")).toList()));
    }

    /**
     * {@code need} ranks split over {@code sites} in contiguous blocks as evenly as possible (the first
     * sites take the remainder); a site with fewer free slots than its share passes the rest on to the
     * sites after it (and, wrapping round, before it) that have room. Oversubscribing runs split evenly.
     */
    static Map<String, Integer> split(int need, List<String> sites, Map<String, Integer> free, boolean oversubscribe) {
        Map<String, Integer> quota = new LinkedHashMap<>();
        int k = sites.size();
        for (int i = 0; i < k; i++) {
            quota.put(sites.get(i), need / k + (i < need % k ? 1 : 0));
        }
        if (oversubscribe) {
            return quota;
        }
        int excess = 0;
        for (String s : sites) {
            int room = free.getOrDefault(s, 0);
            if (quota.get(s) > room) {
                excess += quota.get(s) - room;
                quota.put(s, room);
            }
        }
        for (String s : sites) {
            int more = Math.min(excess, free.getOrDefault(s, 0) - quota.get(s));
            if (more > 0) {
                quota.put(s, quota.get(s) + more);
                excess -= more;
            }
        }
        if (excess > 0) {
            // not enough room in these sites: the last one takes the rest, and Placement says there is no room
            String last = sites.get(k - 1);
            quota.put(last, quota.get(last) + excess);
        }
        return quota;
    }

    /** The hosts of these sites, site by site in the order given, by host id within a site. */
    private static List<HostInfo> inSites(List<HostInfo> hosts, List<String> sites) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < sites.size(); i++) {
            index.put(sites.get(i), i);
        }
        List<HostInfo> out = new ArrayList<>();
        for (HostInfo h : hosts) {
            if (index.containsKey(h.site())) {
                out.add(h);
            }
        }
        out.sort(Comparator.<HostInfo>comparingInt(h -> index.get(h.site())).thenComparing(HostInfo::hostId));
        return out;
    }

    private static Placed placed(List<RankPlacement> ranks, String reason) {
        return new Placed(ranks, sitesOf(ranks), reason);
    }

    /** The sites of these ranks in the order of their lowest rank. */
    private static List<String> sitesOf(List<RankPlacement> ranks) {
        Set<String> sites = new LinkedHashSet<>();
        ranks.stream().sorted(Comparator.comparingInt(RankPlacement::rank)).forEach(r -> sites.add(r.endpoint().site()));
        return List.copyOf(sites);
    }

    private static String freeText(Map<String, Integer> free) {
        return String.join(", ", free.entrySet().stream().map(e -> e.getKey() + " " + e.getValue() + " free").toList());
    }
}
