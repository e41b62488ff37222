// Logs and outputs per rank: a rank picker (or all ranks), a level filter and a text search over the
// log lines the engine keeps (the newest 500 per rank, said so with the total), links to download
// the full log (all ranks or the picked one), and the outputs table.

import { el, show } from './dom.js';
import { formatClockWithZone, formatValue, plural } from './format.js';

/** MPFL's log levels (<log level>): there is no debug. */
const LEVELS = ['info', 'warn', 'error'];

export class RankLogsView {
  constructor(runId) {
    this.runId = runId;
    this.selected = 'all';
    this.level = '';
    this.search = '';
    this.picker = el('select', {id: 'log-rank', onchange: () => { this.selected = this.picker.value; this.redraw(); }});
    this.levelPicker = el('select', {id: 'log-level', onchange: () => { this.level = this.levelPicker.value; this.redraw(); }},
      // "info and above" would be "all levels" again: info is the lowest
      el('option', {value: ''}, 'all levels'),
      LEVELS.slice(1).map(l => el('option', {value: l}, l === LEVELS[LEVELS.length - 1] ? l + ' only' : l + ' and above')));
    this.searchInput = el('input', {type: 'search', id: 'log-search', placeholder: 'search the lines', 'aria-label': 'Search the log lines',
      oninput: () => { this.search = this.searchInput.value.trim().toLowerCase(); this.redraw(); }});
    this.counts = el('p', {class: 'sub', id: 'log-counts', role: 'status'});
    this.download = el('a', {id: 'log-download', class: 'button-link'});
    this.logs = el('div', {class: 'log-lines', id: 'logs', tabindex: 0, 'aria-label': 'Log lines'});
    this.outputs = el('div', {class: 'table-holder', id: 'outputs'});
    this.element = el('div', {class: 'logs-outputs'},
      el('section', {'aria-labelledby': 'logs-heading'},
        el('h3', {id: 'logs-heading'}, 'Logs'),
        el('div', {class: 'toolbar'}, el('label', {for: 'log-rank'}, 'Rank'), this.picker,
          el('label', {for: 'log-level'}, 'Level'), this.levelPicker, this.searchInput),
        el('div', {class: 'toolbar'}, this.counts, this.download),
        this.logs),
      el('section', {'aria-labelledby': 'outputs-heading'},
        el('h3', {id: 'outputs-heading'}, 'Outputs'),
        this.outputs));
  }

  redraw() {
    if (this.lastModel) this.update(this.lastModel);
  }

  update(model) {
    this.lastModel = model;
    const options = ['all', ...model.ranks.map(r => String(r.rank))];
    if (this.picker.options.length !== options.length) {
      show(this.picker, options.map(o => el('option', {value: o, selected: o === this.selected}, o === 'all' ? 'all ranks' : 'rank ' + o)));
    }
    const ranks = this.selected === 'all' ? model.ranks : model.ranks.filter(r => String(r.rank) === this.selected);
    const kept = ranks.flatMap(r => (r.logs || []).map(l => ({...l, rank: r.rank})))
      .sort((a, b) => a.timeMs - b.timeMs || a.rank - b.rank);
    const total = ranks.reduce((s, r) => s + Math.max(r.logCount || 0, (r.logs || []).length), 0);
    const minLevel = this.level ? LEVELS.indexOf(this.level) : -1;
    const lines = kept.filter(l => (minLevel < 0 || LEVELS.indexOf(l.level || 'info') >= minLevel)
      && (!this.search || String(l.message).toLowerCase().includes(this.search)));
    const filtered = this.level || this.search;
    this.counts.dataset.kept = String(kept.length);
    this.counts.dataset.total = String(total);
    // the ranks' lines are the current attempt's (a restart or resume places the ranks afresh); the full log has all
    const earlier = model.attempt > 1;
    this.counts.dataset.attempt = String(model.attempt);
    show(this.counts, total === 0 ? (earlier ? `no line yet in attempt ${model.attempt}; earlier attempts' lines are in the full log` : '')
      : (earlier ? `attempt ${model.attempt}: ` : '') + (kept.length < total ? `showing the last ${kept.length} of ${plural(total, 'line')}`
      + ' (the engine keeps the newest 500 per rank)' : `showing all ${plural(total, 'line')}`)
      + (earlier ? ' · earlier attempts\' lines are in the full log' : '')
      + (filtered ? ` · ${lines.length} match` : ''));
    const rankQuery = this.selected === 'all' ? '' : '?rank=' + encodeURIComponent(this.selected);
    this.download.href = 'api/runs/' + encodeURIComponent(this.runId) + '/logs' + rankQuery;
    this.download.download = this.runId + (this.selected === 'all' ? '' : '-rank-' + this.selected) + '.log';
    this.download.textContent = this.selected === 'all' ? 'Download the full log (all ranks)' : `Download rank ${this.selected}'s full log`;
    this.download.hidden = total === 0 && !earlier;
    const stickToBottom = this.logs.scrollTop + this.logs.clientHeight >= this.logs.scrollHeight - 4;
    show(this.logs, lines.length === 0 ? el('p', {class: 'empty'}, filtered && kept.length ? 'No line matches.' : earlier ? `No log lines in attempt ${model.attempt}.` : 'No log lines.')
      : lines.map(l => el('div', {class: 'log-line level-' + (l.level || 'info'), 'data-rank': l.rank},
          el('span', {class: 'log-time'}, formatClockWithZone(l.timeMs)), ' ',
          el('span', {class: 'log-rank'}, 'rank ' + l.rank), ' ',
          el('span', {class: 'log-level'}, l.level || 'info'), ' ',
          el('span', {class: 'log-message'}, l.message))));
    if (stickToBottom) this.logs.scrollTop = this.logs.scrollHeight;

    const names = Object.keys(model.outputs || {}).sort();
    const rankIds = model.ranks.map(r => String(r.rank));
    show(this.outputs, names.length === 0 ? el('p', {class: 'empty', id: 'outputs-empty'}, model.isFinal ? 'The run reported no outputs.' : 'No outputs yet.')
      : el('table', {class: 'data outputs', id: 'outputs-table'},
          el('caption', {class: 'visually-hidden'}, 'Outputs by name and rank'),
          el('thead', {}, el('tr', {}, el('th', {scope: 'col'}, 'Output'), rankIds.map(r => el('th', {scope: 'col'}, 'rank ' + r)))),
          el('tbody', {}, names.map(name => el('tr', {'data-output': name},
            el('th', {scope: 'row', class: 'mono'}, name),
            rankIds.map(r => {
              const has = Object.prototype.hasOwnProperty.call(model.outputs[name], r);
              return el('td', {class: 'mono', 'data-rank': r}, has ? formatValue(model.outputs[name][r]) : '');
            }))))));
  }
}
