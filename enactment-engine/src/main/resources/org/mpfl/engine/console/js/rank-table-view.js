// Per-rank state: process and host, state, progress bar, current activity with its source
// location, and for a blocked rank what it waits for (peer, tag, communicator; or the collective).

import { el, show, stateBadge, progressBar } from './dom.js';
import { formatDuration, shortLocation } from './format.js';
import { RunModel } from './run-model.js';
import { describeWaits } from './wait-description.js';

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

function rankRow(r, now) {
  const elapsed = r.startedMs ? (r.endedMs || now) - r.startedMs : null;
  return el('tr', {'data-rank': r.rank, 'data-state': r.state, 'data-blocked': String(Boolean(r.blocked)),
                   class: [r.blocked ? 'blocked' : null, 'rank-' + String(r.state).toLowerCase()]},
    el('th', {scope: 'row', class: 'num'}, String(r.rank)),
    el('td', {}, r.process || '–', el('div', {class: 'sub mono', title: r.endpoint || ''}, r.host || '')),
    el('td', {class: 'rank-state'}, stateBadge(r.state),
      r.error && r.state !== 'DONE' ? el('div', {class: 'rank-error'}, r.error) : null),
    el('td', {class: 'progress-cell'}, progressBar(RunModel.rankProgress(r), 'progress of rank ' + r.rank),
      r.progress && r.progress.total > 0 ? el('div', {class: 'sub'}, `${trim(r.progress.value)} / ${trim(r.progress.total)}`) : null),
    el('td', {class: 'rank-activity'}, r.activity || ''),
    el('td', {class: 'rank-location mono', title: r.location || '', 'data-location': r.location || ''}, shortLocation(r.location)),
    waitCell(r),
    el('td', {class: 'num'}, formatDuration(elapsed)));
}

function trim(x) {
  return Number.isInteger(x) ? String(x) : Number(x).toFixed(2);
}

export class RankTableView {
  constructor() {
    this.element = el('div', {class: 'table-holder'});
  }

  update(model) {
    const now = Date.now();
    const blocked = model.ranks.filter(r => r.blocked && !['DONE', 'FAILED', 'ABORTED'].includes(r.state)).length;
    show(this.element,
      blocked ? el('p', {class: 'blocked-summary', id: 'blocked-summary'},
        `${blocked} of ${model.ranks.length} rank${model.ranks.length === 1 ? '' : 's'} blocked`) : null,
      model.ranks.length === 0 ? el('p', {class: 'empty'}, 'Ranks are being placed…')
        : el('table', {class: 'data ranks', id: 'ranks-table'},
            el('caption', {class: 'visually-hidden'}, 'Ranks of this run'),
            el('thead', {}, el('tr', {}, ['Rank', 'Process · host', 'State', 'Progress', 'Current activity', 'Location',
              'Waiting for', 'Time'].map(h => el('th', {scope: 'col'}, h)))),
            el('tbody', {}, model.ranks.map(r => rankRow(r, now)))));
  }
}
