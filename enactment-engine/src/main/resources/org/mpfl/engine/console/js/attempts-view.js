// A run's attempts and checkpoints: every placement of its ranks (the start, a re-placement after
// hosts refused it, a restart after an infrastructure fault, a resume) with its cause, the checkpoint
// it resumed from, how it ended, its wall and active time and how long the ranks took to run again;
// the host faults of each; and the checkpoints its ranks took (size, how long the parts took to
// arrive, complete or not, unusable), collapsed to a summary when there are many.

import { el, show, stateBadge, humanText, redrawKeepingOpen } from './dom.js';
import { formatAmount, formatBytes, formatDuration, formatTime, plural } from './format.js';

/**
 * How the run's host pairs connect across sites (reverse, relay) and why, one line per such pair;
 * nothing when every pair is direct.
 */
function connectionsNote(connections) {
  const across = (connections || []).filter(c => c.method !== 'direct');
  if (across.length === 0) return null;
  return el('div', {class: 'sub', id: 'connections'},
    `Connections: ${connections.length - across.length} of ${plural(connections.length, 'host pair')} direct`,
    across.map(c => el('div', {class: 'connection', 'data-method': c.method, 'data-from': c.from, 'data-to': c.to},
      `${c.from} → ${c.to}: ${c.why}`)));
}

/** Checkpoints shown before "show all". */
const CHECKPOINTS_SHOWN = 5;

/** When attempt a ended: its own end, else (the last attempt of an ended run) the run's end, else now. */
export function attemptEnd(run, a, isFinal) {
  if (a.endMs) return a.endMs;
  const log = run.attemptLog || [];
  if (isFinal && run.endedMs && a === log[log.length - 1]) return run.endedMs;
  return isFinal ? null : Date.now();
}

/** The sum of the attempts' wall times (the run's time minus the gaps between attempts). */
export function activeMs(run, isFinal) {
  const log = run.attemptLog || [];
  if (log.length === 0) {
    return run.startedMs ? (run.endedMs || Date.now()) - run.startedMs : null;
  }
  return log.reduce((sum, a) => {
    const end = attemptEnd(run, a, isFinal);
    return sum + (end && a.startMs ? Math.max(0, end - a.startMs) : 0);
  }, 0);
}

/** "1 attempt", "2 attempts · resumed", "3 attempts · restarted". */
export function attemptsLabel(run) {
  const log = run.attemptLog || [];
  const n = log.length || run.attempts || 1;
  const resumed = run.resumed || log.some(a => a.cause === 'resumed by user');
  const restarted = log.some(a => String(a.cause || '').startsWith('restart after'));
  return plural(n, 'attempt') + (resumed ? ' · resumed' : '') + (restarted ? ' · restarted' : '');
}

/** An attempt's outcome: the run's final state, or INTERRUPTED when the next attempt replaced it. */
function outcome(run, a, isFinal) {
  const log = run.attemptLog || [];
  const last = a === log[log.length - 1];
  const state = a.outcome || (last ? (isFinal ? run.state : 'RUNNING') : 'INTERRUPTED');
  return el('td', {class: 'attempt-outcome', 'data-outcome': state}, stateBadge(state),
    a.outcomeMessage && state !== 'SUCCEEDED' ? humanText(a.outcomeMessage, 'sub attempt-message', 'attempt-' + a.attempt) : null);
}

export class AttemptsView {
  constructor() {
    this.showAll = false;
    this.summary = el('p', {class: 'sub', id: 'restarts-summary'});
    this.attempts = el('tbody');
    this.checkpointSummary = el('p', {class: 'sub', id: 'checkpoints-summary'});
    this.checkpoints = el('tbody');
    this.toggle = el('button', {type: 'button', id: 'checkpoints-toggle', onclick: () => { this.showAll = !this.showAll; this.redraw(); }});
    this.element = el('div', {},
      this.summary,
      el('div', {class: 'table-holder'}, el('table', {class: 'data attempts', id: 'attempts-table'},
        el('thead', {}, el('tr', {},
          // "Ranks running", not "Active time": the header's active time is the sum of the attempts' wall times
          [['#'], ['Cause'], ['Resumed from'], ['Outcome'], ['Started'], ['Wall time', 'from its placement to its end'],
            ['Ranks running', 'from every rank running to the end of the attempt'], ['Running again after'], ['Hosts']]
            .map(([h, title]) => el('th', {scope: 'col', title}, h)))),
        this.attempts)),
      el('h3', {}, 'Checkpoints'),
      this.checkpointSummary,
      el('div', {class: 'table-holder'}, el('table', {class: 'data checkpoints', id: 'checkpoints-table'},
        el('thead', {}, el('tr', {},
          el('th', {scope: 'col'}, 'Checkpoint'), el('th', {scope: 'col'}, 'Attempt'), el('th', {scope: 'col', title: 'the highest <progress> the engine had received from a rank when the ranks reported the checkpoint: '
            + 'progress is sampled, so this is where the run was then, not the checkpoint\'s own iteration'}, 'Progress then'),
          el('th', {scope: 'col'}, 'Parts'),
          el('th', {scope: 'col'}, 'Size'), el('th', {scope: 'col'}, 'Parts arrived within'),
          el('th', {scope: 'col'}, 'Slowest rank'), el('th', {scope: 'col'}, 'Taken'),
          el('th', {scope: 'col'}, 'Status'))),
        this.checkpoints)),
      this.toggle);
  }

  redraw() {
    if (this.lastModel) this.update(this.lastModel);
  }

  update(model) {
    this.lastModel = model;
    const run = model.run || {};
    const restarts = run.restarts || {allowed: 0, used: 0};
    const log = run.attemptLog || [];
    const faults = run.hostFaults || [];
    // "0 of 0 used" says nothing: the restarts are named only when the run allowed some
    show(this.summary, (restarts.allowed > 0 ? `Restarts after infrastructure faults: ${restarts.used} of ${restarts.allowed} used · ` : '')
      + `${attemptsLabel(run)} · ${plural(run.checkpointsTaken || 0, 'complete checkpoint')}`,
      // which sites the ranks are in and why (only when the hosts are in several sites or the run asked for some)
      run.placement ? el('div', {class: 'sub', id: 'placement-reason', 'data-sites': (run.placement.sites || []).join(',')},
        'Placement: ' + run.placement.reason) : null,
      connectionsNote(run.connections));
    redrawKeepingOpen(this.attempts, () => show(this.attempts, log.map(a => {
      const end = attemptEnd(run, a, model.isFinal);
      return el('tr', {'data-attempt': a.attempt},
        el('th', {scope: 'row', class: 'num'}, String(a.attempt)),
        el('td', {class: 'attempt-cause'}, a.cause,
          a.note ? el('div', {class: 'sub attempt-note'}, a.note) : null,
          faults.filter(f => f.attempt === a.attempt).map(f => el('div', {class: 'sub attempt-fault', 'data-host': f.host}, f.message))),
        el('td', {class: 'attempt-resumed', 'data-resumed-from': a.resumedFrom ?? ''},
          a.resumedFrom === null || a.resumedFrom === undefined ? 'start' : 'checkpoint ' + a.resumedFrom),
        outcome(run, a, model.isFinal),
        el('td', {}, formatTime(a.startMs)),
        el('td', {class: 'num attempt-wall'}, end ? formatDuration(end - a.startMs) : '–'),
        el('td', {class: 'num attempt-active', title: 'from every rank running to the end of the attempt'},
          end && a.runningMs ? formatDuration(Math.max(0, end - a.runningMs)) : '–'),
        el('td', {class: 'num'}, a.recoveryMs === null || a.recoveryMs === undefined ? '–' : formatDuration(a.recoveryMs)),
        el('td', {class: 'mono'}, (a.hosts || []).join(', ')));
    })));
    const cps = (run.checkpoints || []).slice().reverse();
    show(this.checkpointSummary, checkpointsSummary(run, cps));
    const shown = this.showAll ? cps : cps.slice(0, CHECKPOINTS_SHOWN);
    this.toggle.hidden = cps.length <= CHECKPOINTS_SHOWN;
    this.toggle.textContent = this.showAll ? `Show the newest ${CHECKPOINTS_SHOWN} only` : showMoreLabel(run, cps);
    show(this.checkpoints, cps.length === 0
      ? el('tr', {}, el('td', {colspan: 9, class: 'sub'}, 'No checkpoint taken.'))
      : shown.map(c => el('tr', {'data-seq': c.seq, 'data-complete': String(c.complete),
        'data-unusable': c.unusable ? 'true' : 'false'},
        el('th', {scope: 'row', class: 'num'}, String(c.seq)),
        el('td', {class: 'num'}, String(c.attempt)),
        el('td', {class: 'num checkpoint-progress'}, c.progress && c.progress.total > 0
          ? `${formatAmount(c.progress.value)} of ${formatAmount(c.progress.total)}` : '–'),
        el('td', {class: 'num'}, `${c.parts} / ${c.ranks}`),
        el('td', {class: 'num'}, formatBytes(c.bytes)),
        el('td', {class: 'num'}, formatDuration(c.spanMs)),
        el('td', {class: 'num'}, c.rankMs === null || c.rankMs === undefined ? '–' : formatDuration(c.rankMs)),
        el('td', {}, formatTime(c.lastMs)),
        el('td', {class: 'checkpoint-status'}, checkpointStatus(c, c === cps[0] && !model.isFinal && log.length > 0 && c.attempt === log[log.length - 1].attempt),
          c.notStored ? el('div', {class: 'sub'}, c.notStored) : null))));
  }
}

/**
 * The checkpoints in one line. The engine lists only the newest ones (50): "usable" and the size are
 * of those listed, so the line says how many are listed when more were taken.
 */
function checkpointsSummary(run, cps) {
  if (cps.length === 0) return '';
  const taken = run.checkpointsTaken || 0;
  const usable = cps.filter(c => c.complete && !c.unusable).length;
  const bytes = cps.reduce((s, c) => s + (c.bytes || 0), 0);
  const listed = taken > cps.length ? ` · the newest ${cps.length} listed: ${usable} usable, ${formatBytes(bytes)}`
    : ` · ${usable} usable · ${formatBytes(bytes)} listed`;
  return `${plural(taken, 'complete checkpoint')} taken${listed} · newest ${cps[0].seq} at ${formatTime(cps[0].lastMs)}`;
}

/** The button that shows every listed checkpoint: "all" only when the listing holds every one taken. */
function showMoreLabel(run, cps) {
  return (run.checkpointsTaken || 0) > cps.length ? `Show the ${cps.length} newest` : `Show all ${cps.length} checkpoints`;
}

/** A checkpoint's status; the newest of the running attempt, its parts still arriving, is being written, not incomplete. */
function checkpointStatus(c, beingWritten) {
  if (c.unusable) return c.unusable;
  if (c.complete) return 'complete';
  return beingWritten ? 'being written' : 'incomplete';
}
