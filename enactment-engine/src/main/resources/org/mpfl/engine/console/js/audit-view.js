// The audit trail (admins): every mutation an authenticated caller made — who, from where, what, the result —
// oldest first, a page at a time (#/audit?after=ID). The engine never writes a body or a secret into it.

import { api } from './api.js';
import { el, show } from './dom.js';
import { formatTime } from './format.js';
import { loggedIn, sessionKnown } from './session.js';

const PAGE = 500;

function entryRow(e) {
  return el('tr', {'data-audit-id': e.id},
    el('td', {class: 'num'}, e.id),
    el('td', {}, formatTime(e.timeMs)),
    el('th', {scope: 'row', class: 'mono'}, e.who),
    el('td', {class: 'mono'}, e.source),
    el('td', {class: 'mono'}, e.action),
    el('td', {class: 'num', 'data-status': e.status}, e.status));
}

/** Shows a page of the audit trail in container, from the entry after query's "after". */
export function mountAuditView(container, query) {
  const after = Math.max(0, Number(query.get('after')) || 0);
  const status = el('p', {class: 'status-line', role: 'status'}, 'Loading…');
  const holder = el('div', {class: 'table-holder'});
  show(container, el('h1', {}, 'Audit trail'), status, holder);
  let live = true;
  api.audit(after, PAGE).then(entries => {
    if (!live) return;
    status.className = 'sub'; // a count, not a problem: status-line is red
    status.textContent = entries.length === 0 ? 'No entries' + (after ? ' after entry ' + after : '') + '.'
      : `Entries ${entries[0].id} to ${entries[entries.length - 1].id}`;
    const next = entries.length === PAGE ? el('p', {}, el('a', {href: '#/audit?after=' + entries[entries.length - 1].id}, 'Later entries'))
      : null;
    show(holder, entries.length === 0 ? null : el('table', {class: 'data audit', id: 'audit-table'},
      el('caption', {class: 'visually-hidden'}, 'Audit trail'),
      el('thead', {}, el('tr', {}, ['#', 'Time', 'Who', 'From', 'What', 'Result'].map(h => el('th', {scope: 'col'}, h)))),
      el('tbody', {}, entries.map(entryRow))), next);
  }).catch(async e => {
    await sessionKnown();
    if (!live) return;
    const session = loggedIn();
    // logged in, the engine token's field is not offered: the way is another login
    status.textContent = e.status === 403 && session ? `The audit trail is for admins; ${session.user} is ${session.role}.`
      : e.status === 401 || e.status === 403 ? 'The audit trail is for admins: log in as one, or save the engine token.'
      : 'Cannot read the audit trail: ' + e.message;
  });
  return () => { live = false; };
}
