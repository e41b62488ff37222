// Per-rank state: process and host, state, progress bar, activity with its source location, and for
// a blocked rank what it waits for (peer, tag, communicator; or the collective). Above the table,
// how many ranks are blocked and the rank most of them wait for, with what that rank is doing.

import { el, show, stateBadge, progressBar, humanText, redrawKeepingOpen } from './dom.js';
import { formatAmount, formatDuration, formatTime, plural, shortLocation } from './format.js';
import { RunModel } from './run-model.js';
import { describeWaits } from './wait-description.js';
import { locationLink } from './workflows-view.js';

const ENDED = new Set(['DONE', 'FAILED', 'ABORTED']);

function waitParts(w) {
  const part = (name, value) => value === null || value === undefined ? null
    : el('span', {class: 'wait-part', 'data-part': name}, el('span', {class: 'wait-key'}, name), ' ', el('strong', {}, value));
  if (w.kind === 'receive') return [el('span', {class: 'wait-op'}, w.op), part('from rank', w.peer), part('tag', w.tag), part('comm', w.comm)];
  if (w.kind === 'send') return [el('span', {class: 'wait-op'}, w.op), part('to rank', w.peer), part('tag', w.tag), part('comm', w.comm)];
  if (w.kind === 'collective') return [el('span', {class: 'wait-op'}, 'collective ' + w.op), part('comm', w.comm), part('ranks', w.ranks), part('root', w.root)];
  return [el('span', {class: 'wait-op'}, w.text)];
}

function waitCell(r) {
  if (!r.blocked || !r.waitingFor) return el('td', {class: 'rank-wait'}, '');
  const waits = describeWaits(r.waitingFor);
  return el('td', {class: 'rank-wait', 'data-wait-kind': waits.map(w => w.kind).join(' '), title: r.waitingFor},
    el('span', {class: 'blocked-tag'}, 'blocked'), ' ',
    waits.map(w => el('div', {class: 'wait'}, waitParts(w))));
}

/** Why an ABORTED rank stopped, in the engine's words (the run's abortedBecause, as `mpflc status` says it). */
export function stopReason(run) {
  return 'stopped: ' + ((run && run.abortedBecause) || 'run aborted');
}

/**
 * A rank's progress: its own last report; in an attempt resumed from a checkpoint, until the rank reports again, the
 * progress the run had when that checkpoint was taken (said so, not a false 0); a rank of a later attempt that has
 * not reported yet says so rather than that it reports none.
 */
function progressCell(r, attempt) {
  const p = r.progress || {};
  if (!RunModel.reportsProgress(r)) {
    const none = attempt > 1 && !ENDED.has(r.state) ? `no progress reported yet in attempt ${attempt}` : 'no progress reported';
    return el('td', {class: 'progress-cell', 'data-reports': 'false'},
      r.state === 'DONE' ? progressBar(1, 'rank ' + r.rank + ' done') : null,
      el('div', {class: 'sub progress-note'}, r.state === 'DONE' ? 'done · no progress reported' : none));
  }
  const of = `${formatAmount(p.value)} of ${formatAmount(p.total)}`;
  const fromCheckpoint = r.progressFromCheckpoint !== null && r.progressFromCheckpoint !== undefined;
  let note = of;
  if (r.state === 'DONE') note = p.value < p.total ? `ended at ${of} · finished early` : `done · ${of}`;
  else if (ENDED.has(r.state)) note = `stopped at ${of}`;
  else if (fromCheckpoint) note = `resumed at ${of} · checkpoint ${r.progressFromCheckpoint}`;
  return el('td', {class: 'progress-cell', 'data-reports': 'true', 'data-from-checkpoint': fromCheckpoint ? String(r.progressFromCheckpoint) : null,
                   title: fromCheckpoint ? `where the run was when checkpoint ${r.progressFromCheckpoint} was taken: `
                     + `attempt ${attempt} resumed from it and this rank has not reported its own progress yet` : null},
    progressBar(RunModel.rankProgress(r), 'progress of rank ' + r.rank),
    el('div', {class: 'sub progress-note'}, note));
}

/**
 * Whose fault a rank's failure is, as its host said (the rank's fault): the engine restarts a run after the
 * infrastructure's while restarts are left, never after the workflow's. Whether this run did (or will) is said from its
 * restarts, not assumed: a run that allows none, or has used them all, or ended, is not restarted.
 */
const FAULT_TIPS = {
  WORKFLOW: 'raised by the workflow itself (a <fail>, an activity\'s or a kernel\'s exception, a kernel that cannot start): '
    + 'a restart would fail the same way',
  INFRASTRUCTURE: 'not the workflow\'s: its kernel worker was killed from outside (SIGKILL, the OOM killer), or a peer or host was lost',
};

/** What became of the run after a rank's infrastructure fault, from its restarts ({allowed, used}) and whether it ended. */
function restartFate(run, runEnded) {
  const restarts = (run && run.restarts) || {allowed: 0, used: 0};
  const used = `${restarts.used} of ${restarts.allowed} used`;
  if (!(restarts.allowed > 0)) return 'not restarted: the run allows no restarts';
  if (restarts.used >= restarts.allowed) return `not restarted: no restarts left (${used})`;
  return runEnded ? `not restarted: the run ended (${used})` : `restarted while restarts are left (${used})`;
}

function faultKind(r, run, runEnded) {
  if (r.state !== 'FAILED' || !FAULT_TIPS[r.fault]) return null;
  const words = r.fault === 'WORKFLOW' ? 'workflow fault · never restarted' : 'infrastructure fault · ' + restartFate(run, runEnded);
  return el('div', {class: 'fault-kind', 'data-fault': r.fault, title: FAULT_TIPS[r.fault]}, words);
}

function stateCell(r, run, runEnded) {
  if (r.state === 'ABORTED') {
    // a rank the engine could not reach when the run ended (its host lost) says so in the engine's words: "stopped:
    // rank 0 failed" would be untrue of it, and of rank 0 itself when its lost host is what failed the run
    const lost = /^lost: /.test(r.error || '');
    return el('td', {class: 'rank-state'}, stateBadge('ABORTED'),
      el('div', {class: 'rank-stopped', 'data-lost': String(lost), title: r.error || ''}, lost ? r.error : stopReason(run)));
  }
  return el('td', {class: 'rank-state'}, stateBadge(r.state),
    r.error && r.state === 'FAILED' ? humanText(r.error, 'rank-error', 'rank-' + r.rank) : null, faultKind(r, run, runEnded));
}

/** The rank's running time in the current attempt, with its clock times in the tooltip (earlier attempts: the attempts table). */
function timeCell(r, now, attempt) {
  const elapsed = r.startedMs ? (r.endedMs || now) - r.startedMs : null;
  // a rank lost with its host never reported its end: its endedMs is when it was last heard of, so it ran at least that long
  const end = r.lost ? `, last heard of ${formatTime(r.endedMs)}, its end is not known (its host was lost)` : `, ended ${formatTime(r.endedMs)}`;
  const clock = r.startedMs ? `started ${formatTime(r.startedMs)}` + (r.endedMs ? end : '') : 'not started';
  return el('td', {class: 'num rank-time', 'data-attempt': attempt, title: (attempt > 1 ? `attempt ${attempt}: ` : '') + clock},
    (r.lost && elapsed !== null ? '≥ ' : '') + formatDuration(elapsed));
}

function rankRow(r, run, now, runEnded, attempt) {
  const origin = run && run.state === 'FAILED' && run.error && run.error.rank === r.rank;
  const ended = ENDED.has(r.state);
  return el('tr', {id: 'rank-row-' + r.rank, 'data-rank': r.rank, 'data-state': r.state, 'data-blocked': String(Boolean(r.blocked)),
                   'data-failure-origin': String(Boolean(origin)),
                   class: [r.blocked ? 'blocked' : null, 'rank-' + String(r.state).toLowerCase(), origin ? 'failure-origin' : null,
                     isFlashing(r.rank) ? 'flash' : null]},
    el('th', {scope: 'row', class: 'num'}, String(r.rank)),
    el('td', {class: 'rank-place'}, r.process || '–', el('div', {class: 'sub mono host', title: r.endpoint || ''}, r.host || '',
      r.site && r.site !== 'default' ? el('span', {class: 'site', 'data-site': r.site}, ' · site ' + r.site) : null)),
    stateCell(r, run, runEnded),
    progressCell(r, attempt),
    // "last:" only while the column says "Activity": once the run ended its heading says "Last activity"
    el('td', {class: 'rank-activity'}, ended && !runEnded && r.activity ? el('span', {class: 'sub'}, 'last: ') : null, r.activity || '',
      origin ? el('div', {class: 'origin-tag'}, /^deadlock/.test((run.error && run.error.message) || '') ? 'first in the deadlock cycle'
        : 'cause of the failure') : null),
    el('td', {class: 'rank-location mono', 'data-location': r.location || ''}, r.location ? locationLink(run, r.location) : ''),
    waitCell(r),
    timeCell(r, now, attempt));
}

/** The rank that most blocked ranks wait for, if they wait for a rank at all. */
function mostWaitedFor(ranks) {
  const counts = new Map();
  for (const r of ranks) {
    if (r.blocked && !ENDED.has(r.state) && Number.isInteger(r.waitsForRank) && r.waitsForRank !== r.rank) {
      counts.set(r.waitsForRank, (counts.get(r.waitsForRank) || 0) + 1);
    }
  }
  let best = null;
  for (const [rank, n] of counts) {
    if (best === null || n > best.n) best = {rank, n};
  }
  return best;
}

function waitedForSummary(model, now) {
  const target = mostWaitedFor(model.ranks);
  if (!target) return null;
  const r = model.ranks[target.rank];
  if (!r) return null;
  const what = r.blocked ? 'is itself blocked'
    : r.activity ? ['is running ', el('strong', {}, r.activity), r.location ? [' at ', el('code', {title: r.location}, shortLocation(r.location))] : null]
      : 'has not reported an activity (busy in a loop or a long computation)';
  const p = r.progress || {};
  return el('p', {class: 'waited-for', id: 'waited-for', 'data-rank': target.rank},
    `${target.n === 1 ? '1 rank waits' : target.n + ' ranks wait'} for `,
    el('a', {href: '#rank-row-' + target.rank, onclick: e => { e.preventDefault(); focusRankRow(target.rank); }}, 'rank ' + target.rank),
    ', which ', what,
    RunModel.reportsProgress(r) ? ` · progress ${formatAmount(p.value)} of ${formatAmount(p.total)}` : null,
    r.startedMs ? ` · running for ${formatDuration((r.endedMs || now) - r.startedMs)}` : null, '.');
}

/**
 * What the ranks table says while the run has no ranks: none was placed (it ended), it waits in the queue (and for
 * what: the engine's queue reason; after an engine restart or for capacity), or its ranks are being placed. A resumed
 * run's progress meanwhile is where it was at the checkpoint it resumes from, which the run's bar shows: said here too.
 */
function unplacedNote(model) {
  const run = model.run || {};
  if (model.isFinal) return el('p', {class: 'empty', id: 'ranks-unplaced'}, 'No rank was placed.');
  // the attempt waiting for places is not in the attempt log yet (it is entered when placed)
  const attempt = ((run.attemptLog || []).length || 0) + 1;
  const checkpoint = model.progressFromCheckpoint();
  const queued = run.state === 'QUEUED';
  return el('div', {id: 'ranks-unplaced', 'data-state': run.state || ''},
    el('p', {class: 'empty'}, queued
      ? [`No rank placed yet: attempt ${attempt} waits in the run queue`,
        run.queue ? [` (position ${run.queue.position}) for `, el('span', {id: 'ranks-queue-reason'}, run.queue.reason)] : ' for places', '.']
      : 'Ranks are being placed…'),
    checkpoint !== null ? el('p', {class: 'sub', id: 'ranks-from-checkpoint', 'data-checkpoint': String(checkpoint)},
      `Resumed from checkpoint ${checkpoint}: the run's progress, ${Math.round(model.progress() * 100)} %, is where it was `
        + `when that checkpoint was taken; each rank's own shows once the ranks of attempt ${attempt} are placed and report it.`)
      : null);
}

const FLASH_MS = 1500;
/** The row being highlighted: a live redraw of the table in the meantime draws it highlighted too. */
let flashing = {rank: null, untilMs: 0};

function isFlashing(rank) {
  return flashing.rank === rank && Date.now() < flashing.untilMs;
}

/** Scrolls to a rank's row and highlights it for a moment (links from the failure panel). */
export function focusRankRow(rank) {
  const row = document.getElementById('rank-row-' + rank);
  if (!row) return;
  row.scrollIntoView({block: 'center'});
  row.classList.add('flash');
  flashing = {rank, untilMs: Date.now() + FLASH_MS};
  setTimeout(() => { const now = document.getElementById('rank-row-' + rank); if (now) now.classList.remove('flash'); }, FLASH_MS);
}

export class RankTableView {
  constructor() {
    this.element = el('div', {class: 'table-holder'});
  }

  update(model) {
    // the table is drawn anew on every live update: a rank's error "details" a reader opened stays open
    redrawKeepingOpen(this.element, () => this.draw(model));
  }

  draw(model) {
    const now = Date.now();
    const run = model.run || {};
    const blocked = model.ranks.filter(r => r.blocked && !ENDED.has(r.state)).length;
    const ended = model.isFinal;
    show(this.element,
      blocked && !ended ? el('div', {class: 'blocked-summary-box'},
        el('p', {class: 'blocked-summary', id: 'blocked-summary'},
          `${blocked} of ${plural(model.ranks.length, 'rank')} blocked`),
        waitedForSummary(model, now)) : null,
      model.ranks.length === 0 ? unplacedNote(model)
        : el('table', {class: 'data ranks', id: 'ranks-table'},
            el('caption', {class: 'visually-hidden'}, 'Ranks of this run'),
            el('thead', {}, el('tr', {}, [['Rank', 'col-rank'], ['Process · host', 'col-place'], ['State', 'col-state'],
              ['Progress', 'col-progress'], [ended ? 'Last activity' : 'Activity', 'col-activity'], ['Location', 'col-location'],
              // the ranks of the current attempt: an earlier attempt's times are in the attempts table and on the timeline
              ['Waiting for', 'col-wait'], [model.attempt > 1 ? `Time (attempt ${model.attempt})` : 'Time', 'col-time']]
              .map(([h, cls]) => el('th', {scope: 'col', class: cls}, h)))),
            el('tbody', {}, model.ranks.map(r => rankRow(r, run, now, ended, model.attempt)))));
  }
}
