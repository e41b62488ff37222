package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.List;

/**
 * How a communicator's ranks sit in groups — sites ({@link CollectiveChannel#sites()}) or service
 * hosts ({@link CollectiveChannel#hosts()}) — for the hierarchical algorithms: the ranks of each group
 * (in rank order), one leader per group (the root in the root's group, else the group's lowest rank),
 * and this rank's local group and leader group. Leaders are in ascending rank order, so groups come in
 * the order of their leaders. Computed identically on every rank from the same array.
 */
final class Hierarchy {
    final int[] local;      // ranks on this rank's host, ascending
    final int localRoot;    // index of this host's leader in local
    final int[] leaders;    // one per host, ascending
    final int leaderRoot;   // index of the root's leader (the root itself) in leaders
    final boolean isLeader;

    private Hierarchy(int[] local, int localRoot, int[] leaders, int leaderRoot, boolean isLeader) {
        this.local = local;
        this.localRoot = localRoot;
        this.leaders = leaders;
        this.leaderRoot = leaderRoot;
        this.isLeader = isLeader;
    }

    /** Whether the ranks are in more than one group (a valid grouping: every number below the size). */
    static boolean spans(int[] groups) {
        if (groups == null) {
            return false;
        }
        for (int g : groups) {
            if (g < 0 || g >= groups.length) {
                return false;
            }
            if (g != groups[0]) {
                return true;
            }
        }
        return false;
    }

    /** Whether grouping by host can save anything: several hosts, and some host with several ranks. */
    static boolean worthwhile(int[] hosts) {
        if (hosts == null) {
            return false;
        }
        int distinct = 0;
        boolean shared = false;
        boolean[] seen = new boolean[hosts.length];
        for (int h : hosts) {
            if (h < 0 || h >= hosts.length) {
                return false;
            }
            if (seen[h]) {
                shared = true;
            } else {
                seen[h] = true;
                distinct++;
            }
        }
        return distinct > 1 && shared;
    }

    static Hierarchy of(int[] hosts, int me, int root) {
        int p = hosts.length;
        List<Integer> leaders = new ArrayList<>();
        int[] leaderOfHost = new int[p];
        java.util.Arrays.fill(leaderOfHost, -1);
        for (int r = 0; r < p; r++) {
            if (leaderOfHost[hosts[r]] < 0) {
                leaderOfHost[hosts[r]] = hosts[r] == hosts[root] ? root : r;
            }
        }
        for (int r = 0; r < p; r++) {
            if (leaderOfHost[hosts[r]] == r) {
                leaders.add(r);
            }
        }
        List<Integer> local = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            if (hosts[r] == hosts[me]) {
                local.add(r);
            }
        }
        int[] l = local.stream().mapToInt(Integer::intValue).toArray();
        int[] ld = leaders.stream().mapToInt(Integer::intValue).toArray();
        int myLeader = leaderOfHost[hosts[me]];
        return new Hierarchy(l, local.indexOf(myLeader), ld, leaders.indexOf(root), myLeader == me);
    }
}
