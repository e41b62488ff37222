// Logs and outputs per rank: a rank picker (or all ranks), the log lines, and the outputs table.

import { el, show } from './dom.js';
import { formatClock, formatValue } from './format.js';

export class RankLogsView {
  constructor() {
    this.selected = 'all';
    this.picker = el('select', {id: 'log-rank', onchange: () => { this.selected = this.picker.value; this.redraw(); }});
    this.logs = el('div', {class: 'log-lines', id: 'logs', tabindex: 0, 'aria-label': 'Log lines'});
    this.outputs = el('div', {class: 'table-holder', id: 'outputs'});
    this.element = el('div', {class: 'logs-outputs'},
      el('section', {'aria-labelledby': 'logs-heading'},
        el('h3', {id: 'logs-heading'}, 'Logs'),
        el('div', {class: 'toolbar'}, el('label', {for: 'log-rank'}, 'Rank'), this.picker),
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
    const lines = ranks.flatMap(r => (r.logs || []).map(l => ({...l, rank: r.rank})))
      .sort((a, b) => a.timeMs - b.timeMs || a.rank - b.rank);
    const stickToBottom = this.logs.scrollTop + this.logs.clientHeight >= this.logs.scrollHeight - 4;
    show(this.logs, lines.length === 0 ? el('p', {class: 'empty'}, 'No log lines.')
      : lines.map(l => el('div', {class: 'log-line level-' + (l.level || 'info'), 'data-rank': l.rank},
          el('span', {class: 'log-time'}, formatClock(l.timeMs)), ' ',
          el('span', {class: 'log-rank'}, 'rank ' + l.rank), ' ',
          el('span', {class: 'log-level'}, l.level || 'info'), ' ',
          el('span', {class: 'log-message'}, l.message))));
    if (stickToBottom) this.logs.scrollTop = this.logs.scrollHeight;

    const names = Object.keys(model.outputs || {}).sort();
    const rankIds = model.ranks.map(r => String(r.rank));
    show(this.outputs, names.length === 0 ? el('p', {class: 'empty'}, 'No outputs yet.')
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
