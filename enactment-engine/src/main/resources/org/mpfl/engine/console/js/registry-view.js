// The registry: service hosts, their sites, services, ranks in use of their capacity, last heartbeat and quarantine; refreshed live.

import { api } from './api.js';
import { el, show } from './dom.js';
import { formatAgo, formatTime } from './format.js';
import { poll } from './polling.js';

const REFRESH_MS = 1000;

function health(host, timeoutMs, now) {
  if (host.staticEntry) return {label: 'static', cls: 'static'};
  const age = now - host.lastHeartbeatMs;
  if (!timeoutMs) return {label: 'alive', cls: 'alive'};
  if (age > timeoutMs) return {label: 'lost', cls: 'lost'};
  if (age > timeoutMs / 2) return {label: 'late', cls: 'late'};
  return {label: 'alive', cls: 'alive'};
}

// A host that refused a deployment or run is kept out of placement for a while: say why and until when.
function quarantineBadge(q) {
  if (!q || !q.active) return null;
  return el('div', {class: 'sub quarantine', title: q.reason},
    el('span', {class: 'badge health-quarantined'}, 'quarantined'),
    ` until ${formatTime(q.untilMs)}` + (q.offences > 1 ? ` (offence ${q.offences})` : '') + ': ' + q.reason);
}

function hostRow(host, timeoutMs, now) {
  const h = health(host, timeoutMs, now);
  const services = (host.services || []).slice().sort();
  return el('tr', {'data-host-id': host.hostId},
    el('td', {}, el('span', {class: 'badge health-' + h.cls}, h.label), quarantineBadge(host.quarantine)),
    el('th', {scope: 'row', class: 'mono'}, host.hostId),
    el('td', {class: 'mono', 'data-site': host.site || 'default'}, host.site || 'default'),
    el('td', {class: 'mono'}, host.soapUrl, host.binaryAddress ? el('div', {class: 'sub'}, 'binary ' + host.binaryAddress) : null),
    el('td', {}, services.length ? el('ul', {class: 'chips'}, services.map(s => el('li', {class: 'chip'}, s)))
                                 : el('span', {class: 'sub'}, 'none yet')),
    el('td', {class: 'num', 'data-capacity': host.capacity, 'data-ranks-in-use': host.ranksInUse || 0,
      title: 'ranks of live runs on this host / the most it takes' + (host.oversubscribe ? ' (more when every host is full)' : '')},
      `${host.ranksInUse || 0} / ${host.capacity}`),
    el('td', {title: formatTime(host.lastHeartbeatMs)}, host.staticEntry ? 'from host file' : formatAgo(host.lastHeartbeatMs, now)));
}

/** Shows the registry in container; returns a function that stops its updates. */
export function mountRegistryView(container) {
  const status = el('p', {class: 'status-line', role: 'status'});
  const summary = el('p', {class: 'summary'});
  const holder = el('div', {class: 'table-holder'});
  show(container, el('h1', {}, 'Registry'), summary, status, holder);
  let timeoutMs = null;
  api.engine().then(info => { timeoutMs = info.heartbeatTimeoutMs; }).catch(() => {});
  return poll(async () => {
    try {
      const hosts = await api.hosts();
      if (!Array.isArray(hosts)) throw new Error('the engine answered without a list of hosts');
      const now = Date.now();
      hosts.sort((a, b) => String(a.hostId).localeCompare(String(b.hostId)));
      const slots = hosts.reduce((n, h) => n + (h.capacity || 0), 0);
      const used = hosts.reduce((n, h) => n + (h.ranksInUse || 0), 0);
      const sites = new Set(hosts.map(h => h.site || 'default')).size;
      summary.textContent = `${hosts.length} service host${hosts.length === 1 ? '' : 's'}, ${used} of ${slots} rank slot${slots === 1 ? '' : 's'} in use`
        + (sites > 1 ? ` in ${sites} sites` : '')
        + (timeoutMs ? ` · hosts leave after ${Math.round(timeoutMs / 1000)} s without heartbeat` : '');
      show(holder, hosts.length === 0
        ? el('p', {class: 'empty'}, 'No service hosts. Enrol one with ', el('code', {}, 'mpflc host-token --engine ' + location.origin + ' -o host.credential'),
            ', then start it with ', el('code', {}, 'mpflc host --credential-file host.credential'), ' (docs/deployment.md).')
        : el('table', {class: 'data hosts', id: 'hosts-table'},
            el('caption', {class: 'visually-hidden'}, 'Registered service hosts'),
            el('thead', {}, el('tr', {}, ['Health', 'Host', 'Site', 'Address', 'Services', 'Ranks in use', 'Last heartbeat']
              .map(h => el('th', {scope: 'col'}, h)))),
            el('tbody', {}, hosts.map(h => hostRow(h, timeoutMs, now)))));
      status.textContent = '';
    } catch (e) {
      status.textContent = 'Cannot read the registry: ' + e.message;
    }
  }, REFRESH_MS);
}
