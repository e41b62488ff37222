package org.mpfl.engine.rest;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.mpfl.engine.capacity.CapacityView;
import org.mpfl.engine.rest.EngineRoutes.Api;
import org.mpfl.engine.rest.EngineRoutes.Reply;

/**
 * {@code GET /api/capacity}: the jobs the capacity provider ({@code mpflc up --provider slurm}) runs for this engine,
 * also those whose host has not joined yet (pending at the scheduler), which {@code GET /api/registry/hosts} cannot
 * list; and why no job is being submitted (the last start failure, a failing scheduler, the wait before the next
 * submission). Read as the host listing is ({@code AccessPolicy}: admins, anyone on a local engine). An engine
 * without a provider answers {@code "provider": null} and no jobs. No secret is in it: the hosts' credentials and
 * the scheduler's JWT never leave the {@code CapacityManager}'s provider.
 */
final class CapacityEndpoints {
    private final Api api;

    CapacityEndpoints(Api api) {
        this.api = api;
    }

    Reply capacity(Exchange ex) {
        if (api.capacity() == null) {
            return Reply.ok(none());
        }
        return Reply.ok(json(api.capacity().view()));
    }

    private static Map<String, Object> none() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("provider", null);
        m.put("jobKind", null);
        m.put("limits", null);
        m.put("jobs", java.util.List.of());
        m.put("nextSubmitMs", null);
        m.put("startFailure", null);
        m.put("submitError", null);
        m.put("failedSubmits", 0);
        m.put("schedulerError", null);
        m.put("asOfMs", System.currentTimeMillis());
        return m;
    }

    static Map<String, Object> json(CapacityView v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("provider", v.provider());
        m.put("jobKind", v.jobKind());
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("maxNodes", v.limits().maxNodes());
        limits.put("cpusPerNode", v.limits().cpusPerNode());
        limits.put("idleReleaseMs", v.limits().idleRelease().toMillis());
        limits.put("pollIntervalMs", v.limits().pollInterval().toMillis());
        limits.put("joinTimeoutMs", v.limits().joinTimeout().toMillis());
        m.put("limits", limits);
        m.put("jobs", v.jobs().stream().map(j -> {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("jobId", j.jobId());
            o.put("jobName", j.jobName());
            o.put("hostId", j.hostId());
            o.put("phase", j.phase());
            o.put("state", j.state());
            o.put("reason", j.reason());
            o.put("node", j.node());
            o.put("submittedMs", j.submittedMs());
            o.put("joined", j.joined());
            o.put("releasing", j.releasing());
            return o;
        }).toList());
        m.put("nextSubmitMs", v.nextSubmitMs());
        m.put("startFailure", v.startFailure());
        m.put("submitError", v.submitError());
        m.put("failedSubmits", v.failedSubmits());
        m.put("schedulerError", v.schedulerError());
        m.put("asOfMs", v.asOfMs());
        return m;
    }
}
