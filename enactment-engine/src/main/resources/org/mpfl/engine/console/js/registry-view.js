// The registry: service hosts, their sites, services, ranks in use of their capacity, last heartbeat and quarantine;
// under them the capacity provider's (Slurm's) jobs when the engine has one; refreshed live.

import { api, ApiError } from './api.js';
import { el, show, stateBadge } from './dom.js';
import { formatAgo, formatDuration, formatTime, plural } from './format.js';
import { poll } from './polling.js';
import { currentToken, hasEngineToken, markTokenRefused, onTokenChange } from './engine-token.js';
import { loggedIn, loginOffered, sessionKnown } from './session.js';

const REFRESH_MS = 1000;

function health(host, timeoutMs, now) {
  if (host.staticEntry) return {label: 'static', cls: 'static'};
  const age = now - host.lastHeartbeatMs;
  if (timeoutMs && age > timeoutMs) return {label: 'lost', cls: 'lost'};
  // it heartbeats, but the engine cannot reach it through its relay: placement leaves it out (mpflc hosts: kept out)
  if (host.unreachable) return {label: 'kept out', cls: 'kept-out'};
  if (timeoutMs && age > timeoutMs / 2) return {label: 'late', cls: 'late'};
  return {label: 'alive', cls: 'alive'};
}

// Why a kept-out host cannot be reached (the relay lost, never announced, or not yet registered again), in full:
// the relay's address and what brings the host back are what the admin acts on.
function unreachableNote(reason) {
  if (!reason) return null;
  return el('div', {class: 'sub kept-out-reason'}, 'out of reach: ' + reason);
}

// A host that refused a deployment or run is kept out of placement for a while: say why and until when.
function quarantineBadge(q) {
  if (!q || !q.active) return null;
  return el('div', {class: 'sub quarantine', title: q.reason},
    el('span', {class: 'badge health-quarantined'}, 'quarantined'),
    ` until ${formatTime(q.untilMs)}` + (q.offences > 1 ? ` (offence ${q.offences})` : '') + ': ' + q.reason);
}

// Placement uses no slot of a host out of reach through its relay or in an active quarantine.
function keptOut(host) {
  return Boolean(host.unreachable) || Boolean(host.quarantine && host.quarantine.active);
}

// "1 of 2 rank slots in use · 7 rank slots kept out (1 host out of reach through its relay, 1 quarantined), not counted":
// the slots placement can use, and apart from them those it cannot, with why in words (not a colour).
function slotsSummary(hosts) {
  const usable = hosts.filter(h => !keptOut(h));
  const slots = usable.reduce((n, h) => n + (h.capacity || 0), 0);
  const used = usable.reduce((n, h) => n + (h.ranksInUse || 0), 0);
  let text = `${used} of ${plural(slots, 'rank slot')} in use`;
  const out = hosts.filter(keptOut);
  if (out.length) {
    const outSlots = out.reduce((n, h) => n + (h.capacity || 0), 0);
    const unreachable = out.filter(h => h.unreachable).length;
    const quarantined = out.length - unreachable; // a host out of reach reads so even when also quarantined
    const why = [unreachable ? `${plural(unreachable, 'host')} out of reach through ${unreachable === 1 ? 'its relay' : 'their relays'}` : null,
      quarantined ? `${quarantined} quarantined` : null].filter(Boolean).join(', ');
    const ranks = out.reduce((n, h) => n + (h.ranksInUse || 0), 0);
    text += ` · ${plural(outSlots, 'rank slot')} kept out (${why}), not counted`
      + (ranks ? ` (${plural(ranks, 'rank')} of live runs still there)` : '');
  }
  return text;
}

// "1 / 2": ranks of live runs / the most the host takes; a kept-out host's slots are none placement can use, so its
// cell says so ("3 rank slots kept out"), as the summary counts them apart, rather than "0 / 3" as if they were free.
function ranksCell(host) {
  const ranks = host.ranksInUse || 0;
  const attrs = {class: 'num', 'data-capacity': host.capacity, 'data-ranks-in-use': ranks};
  if (keptOut(host)) {
    return el('td', Object.assign(attrs, {'data-kept-out': '', title: 'placement uses none of these slots while the host is kept out'}),
      `${plural(host.capacity || 0, 'rank slot')} kept out` + (ranks ? ` (${plural(ranks, 'rank')} of live runs still there)` : ''));
  }
  return el('td', Object.assign(attrs,
    {title: 'ranks of live runs on this host / the most it takes' + (host.oversubscribe ? ' (more when every host is full)' : '')}),
    `${ranks} / ${host.capacity}`);
}

function hostRow(host, timeoutMs, now) {
  const h = health(host, timeoutMs, now);
  const services = (host.services || []).slice().sort();
  return el('tr', {'data-host-id': host.hostId},
    el('td', {}, el('span', {class: 'badge health-' + h.cls}, h.label), unreachableNote(host.unreachable),
      quarantineBadge(host.quarantine)),
    el('th', {scope: 'row', class: 'mono'}, host.hostId),
    el('td', {class: 'mono', 'data-site': host.site || 'default'}, host.site || 'default'),
    el('td', {class: 'mono'}, host.soapUrl, host.binaryAddress ? el('div', {class: 'sub'}, 'binary ' + host.binaryAddress) : null),
    el('td', {}, services.length ? el('ul', {class: 'chips'}, services.map(s => el('li', {class: 'chip'}, s)))
                                 : el('span', {class: 'sub'}, 'none yet')),
    ranksCell(host),
    el('td', {title: formatTime(host.lastHeartbeatMs)}, host.staticEntry ? 'from host file' : formatAgo(host.lastHeartbeatMs, now)));
}

// GET /api/capacity: null when the caller may not read it (the host listing's rule; it says why itself) or the
// engine has no provider, so that the section is simply absent; other failures go to the status line.
async function readCapacity() {
  try {
    const c = await api.capacity();
    return c && c.provider ? c : null;
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) return null;
    throw e;
  }
}

function jobRow(job) {
  const reason = job.reason ? el('div', {class: 'sub'}, job.reason) : null;
  const flags = [job.joined ? 'joined' : 'not joined', job.releasing ? 'releasing' : null].filter(Boolean).join(', ');
  return el('tr', {'data-job-id': job.jobId || '', 'data-host-id': job.hostId},
    el('th', {scope: 'row', class: 'mono', title: job.jobName}, job.jobId || '(looked up by name)'),
    el('td', {'data-state': job.state}, stateBadge(job.state), reason),
    el('td', {class: 'mono'}, job.node || '–'),
    el('td', {class: 'mono'}, job.hostId),
    el('td', {}, flags, el('div', {class: 'sub', title: formatTime(job.submittedMs)}, 'submitted ' + formatAgo(job.submittedMs))));
}

// The provider's limits, jobs (also those whose host has not joined, which the hosts table cannot list) and why
// submissions wait; built with el() only: every text here is the scheduler's or the engine's.
function capacitySection(c) {
  const kind = c.jobKind || 'job';
  const l = c.limits;
  const limits = l ? `${c.provider}: at most ${plural(l.maxNodes, kind)} of ${plural(l.cpusPerNode, 'CPU')} each`
      + ` · an idle host's job is released after ${formatDuration(l.idleReleaseMs)}`
      + ` · the scheduler is asked every ${formatDuration(l.pollIntervalMs)}` : c.provider;
  const jobs = (c.jobs || []).slice().sort((a, b) => (a.submittedMs || 0) - (b.submittedMs || 0));
  const problems = [
    c.startFailure ? ['start-failure', 'Start failure: ' + c.startFailure] : null,
    c.submitError ? ['submit-error', `Submission failed${c.failedSubmits > 1 ? ` (${c.failedSubmits} in a row)` : ''}: ` + c.submitError] : null,
    c.schedulerError ? ['scheduler-error', 'Scheduler: ' + c.schedulerError] : null,
  ].filter(Boolean).map(([id, text]) => el('p', {class: 'capacity-problem', id: 'capacity-' + id}, text));
  return el('section', {class: 'panel', id: 'capacity', 'aria-labelledby': 'capacity-heading'},
    el('h2', {id: 'capacity-heading'}, 'Capacity'),
    el('p', {class: 'summary', id: 'capacity-limits'}, limits),
    jobs.length === 0
      ? el('p', {class: 'empty'}, `No ${kind}s.`)
      : el('div', {class: 'table-holder'}, el('table', {class: 'data capacity-jobs', id: 'capacity-jobs'},
          el('caption', {class: 'visually-hidden'}, `The capacity provider's ${kind}s`),
          el('thead', {}, el('tr', {}, ['Job', 'State', 'Node', 'Host', 'Joined / releasing']
            .map(h => el('th', {scope: 'col'}, h)))),
          el('tbody', {}, jobs.map(jobRow)))),
    problems,
    c.nextSubmitMs ? el('p', {class: 'sub', id: 'capacity-next-submit'},
      `No ${kind} is submitted before ${formatTime(c.nextSubmitMs)}.`) : null);
}

// The host listing is for admins (and anyone on a local engine): refused, the page says so once, with the role it
// needs and what the user is, and stops asking; asking again every second would only be refused again. A new engine
// token (top bar), a login (the page reloads) or opening the page again asks anew.
async function refusal(e) {
  await sessionKnown();
  const session = loggedIn();
  if (e.status === 403 && session) {
    return `The registry needs the admin role; ${session.user} is ${session.role}. An admin's login shows the service hosts.`;
  }
  if (e.status === 401 && hasEngineToken()) {
    markTokenRefused();
    return 'The registry needs the admin role: the engine refused the saved engine token.';
  }
  if (e.status === 401) {
    return 'The registry needs the admin role: ' + (loginOffered() ? 'log in as an admin, or save' : 'save') + ' the engine token (top bar).';
  }
  return 'The registry needs the admin role: ' + e.message;
}

/** Shows the registry in container; returns a function that stops its updates. */
export function mountRegistryView(container) {
  const status = el('p', {class: 'status-line', role: 'status'});
  const summary = el('p', {class: 'summary'});
  const holder = el('div', {class: 'table-holder'});
  const capacity = el('div', {id: 'capacity-holder'});
  show(container, el('h1', {}, 'Registry'), summary, status, holder, capacity);
  let timeoutMs = null;
  let live = true;
  let refusedWith = null; // the engine token (or '') the listing was refused with; null while the page asks
  api.engine().then(info => { timeoutMs = info.heartbeatTimeoutMs; }).catch(() => {});
  const refresh = async () => {
    try {
      // both before anything is drawn: once the hosts show, the capacity section shows too or there is none
      const [hosts, provider] = await Promise.all([api.hosts(), readCapacity().catch(e => e)]);
      if (!Array.isArray(hosts)) throw new Error('the engine answered without a list of hosts');
      const now = Date.now();
      hosts.sort((a, b) => String(a.hostId).localeCompare(String(b.hostId)));
      const sites = new Set(hosts.map(h => h.site || 'default')).size;
      summary.textContent = plural(hosts.length, 'service host') + (sites > 1 ? ` in ${sites} sites` : '') + ', ' + slotsSummary(hosts)
        + (timeoutMs ? ` · hosts leave after ${Math.round(timeoutMs / 1000)} s without heartbeat` : '');
      show(holder, hosts.length === 0
        ? el('p', {class: 'empty'}, 'No service hosts. Enrol one with ', el('code', {}, 'mpflc host-token --engine ' + location.origin + ' -o host.credential'),
            ', then start it with ', el('code', {}, 'mpflc host --credential-file host.credential'), ' (docs/deployment.md).')
        : el('table', {class: 'data hosts', id: 'hosts-table'},
            el('caption', {class: 'visually-hidden'}, 'Registered service hosts'),
            el('thead', {}, el('tr', {}, ['Health', 'Host', 'Site', 'Address', 'Services', 'Ranks in use', 'Last heartbeat']
              .map(h => el('th', {scope: 'col'}, h)))),
            el('tbody', {}, hosts.map(h => hostRow(h, timeoutMs, now)))));
      if (provider instanceof Error) {
        // keep the last section drawn; say why it is not fresh
        status.textContent = 'Cannot read the capacity provider\'s jobs: ' + provider.message;
      } else {
        show(capacity, provider ? capacitySection(provider) : null);
        status.textContent = '';
      }
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.status === 403)) {
        refusedWith = currentToken();
        stopPolling();
        // what an earlier answer drew (before the token was forgotten, say) is not what this caller may see
        summary.textContent = '';
        show(holder);
        show(capacity);
        const words = await refusal(e);
        if (live && refusedWith !== null) status.textContent = words;
        return;
      }
      status.textContent = 'Cannot read the registry: ' + e.message;
    }
  };
  let stopPolling = poll(refresh, REFRESH_MS);
  const unsubscribe = onTokenChange(token => {
    // also called when the top bar's verdict on the same token changes: only another token is worth asking with
    if (!live || refusedWith === null || token === refusedWith || !token) return;
    refusedWith = null;
    stopPolling = poll(refresh, REFRESH_MS);
  });
  return () => {
    live = false;
    unsubscribe();
    stopPolling();
  };
}
