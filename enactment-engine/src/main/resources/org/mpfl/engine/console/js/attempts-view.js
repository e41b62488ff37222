// A run's attempts and checkpoints: every placement of its ranks (the start, a re-placement after
// hosts refused it, a restart after an infrastructure fault, a resume) with its cause, the checkpoint
// it resumed from and how long the ranks took to run again; the host faults of each; and the
// checkpoints its ranks took (size, how long the parts took to arrive, complete or not, unusable).

import { el, show } from './dom.js';
import { formatBytes, formatDuration, formatTime } from './format.js';

export class AttemptsView {
  constructor() {
    this.summary = el('p', {class: 'sub', id: 'restarts-summary'});
    this.attempts = el('tbody');
    this.checkpoints = el('tbody');
    this.element = el('div', {},
      this.summary,
      el('div', {class: 'table-holder'}, el('table', {class: 'data attempts', id: 'attempts-table'},
        el('thead', {}, el('tr', {},
          el('th', {scope: 'col'}, '#'), el('th', {scope: 'col'}, 'Cause'), el('th', {scope: 'col'}, 'Resumed from'),
          el('th', {scope: 'col'}, 'Started'), el('th', {scope: 'col'}, 'Running again after'), el('th', {scope: 'col'}, 'Hosts'))),
        this.attempts)),
      el('h3', {}, 'Checkpoints'),
      el('div', {class: 'table-holder'}, el('table', {class: 'data checkpoints', id: 'checkpoints-table'},
        el('thead', {}, el('tr', {},
          el('th', {scope: 'col'}, 'Checkpoint'), el('th', {scope: 'col'}, 'Attempt'), el('th', {scope: 'col'}, 'Parts'),
          el('th', {scope: 'col'}, 'Size'), el('th', {scope: 'col'}, 'Parts arrived within'),
          el('th', {scope: 'col'}, 'Slowest rank'), el('th', {scope: 'col'}, 'Taken'),
          el('th', {scope: 'col'}, 'Status'))),
        this.checkpoints)));
  }

  update(model) {
    const run = model.run || {};
    const restarts = run.restarts || {allowed: 0, used: 0};
    const log = run.attemptLog || [];
    const faults = run.hostFaults || [];
    show(this.summary, `Restarts after infrastructure faults: ${restarts.used} of ${restarts.allowed} used · `
      + `${log.length} attempt${log.length === 1 ? '' : 's'} · ${run.checkpointsTaken || 0} complete checkpoint`
      + `${run.checkpointsTaken === 1 ? '' : 's'}`);
    show(this.attempts, log.map(a => el('tr', {'data-attempt': a.attempt},
      el('th', {scope: 'row', class: 'num'}, String(a.attempt)),
      el('td', {class: 'attempt-cause'}, a.cause,
        a.note ? el('div', {class: 'sub attempt-note'}, a.note) : null,
        faults.filter(f => f.attempt === a.attempt).map(f => el('div', {class: 'sub attempt-fault', 'data-host': f.host}, f.message))),
      el('td', {class: 'attempt-resumed', 'data-resumed-from': a.resumedFrom ?? ''},
        a.resumedFrom === null || a.resumedFrom === undefined ? 'start' : 'checkpoint ' + a.resumedFrom),
      el('td', {}, formatTime(a.startMs)),
      el('td', {class: 'num'}, a.recoveryMs === null || a.recoveryMs === undefined ? '–' : formatDuration(a.recoveryMs)),
      el('td', {class: 'mono'}, (a.hosts || []).join(', ')))));
    const cps = run.checkpoints || [];
    show(this.checkpoints, cps.length === 0
      ? el('tr', {}, el('td', {colspan: 8, class: 'sub'}, 'No checkpoint taken.'))
      : cps.slice().reverse().map(c => el('tr', {'data-seq': c.seq, 'data-complete': String(c.complete),
        'data-unusable': c.unusable ? 'true' : 'false'},
        el('th', {scope: 'row', class: 'num'}, String(c.seq)),
        el('td', {class: 'num'}, String(c.attempt)),
        el('td', {class: 'num'}, `${c.parts} / ${c.ranks}`),
        el('td', {class: 'num'}, formatBytes(c.bytes)),
        el('td', {class: 'num'}, formatDuration(c.spanMs)),
        el('td', {class: 'num'}, c.rankMs === null || c.rankMs === undefined ? '–' : formatDuration(c.rankMs)),
        el('td', {}, formatTime(c.lastMs)),
        el('td', {class: 'checkpoint-status'}, c.unusable ? c.unusable : c.complete ? 'complete' : 'incomplete',
          c.notStored ? el('div', {class: 'sub'}, c.notStored) : null))));
  }
}
