// The rank × rank message matrix as a heat map: row = sender, column = receiver, with the count
// (or bytes) in each cell, a tooltip with both, and row/column totals.

import { el, show } from './dom.js';
import { formatBytes, formatCount } from './format.js';

const LABELS_UP_TO = 24; // beyond this many ranks, cells carry their numbers in tooltips only

function heat(value, max) {
  if (!value || !max) return {};
  const t = Math.sqrt(value / max); // sqrt: small counts stay visible next to large ones
  const lightness = 95 - t * 62;
  return {background: `hsl(214, 70%, ${lightness}%)`, color: lightness < 58 ? '#fff' : '#102a43'};
}

export class MessageMatrixView {
  constructor() {
    this.measure = 'messages';
    const radio = (value, label) => el('label', {},
      el('input', {type: 'radio', name: 'matrix-measure', value, checked: value === this.measure,
        onchange: () => { this.measure = value; if (this.lastModel) this.update(this.lastModel); }}), ' ' + label);
    this.holder = el('div', {class: 'matrix-holder'});
    this.note = el('p', {class: 'sub', id: 'matrix-note'});
    this.element = el('div', {class: 'matrix', id: 'matrix'},
      el('fieldset', {class: 'toolbar inline'}, el('legend', {}, 'Show'), radio('messages', 'messages'), radio('bytes', 'bytes')),
      this.holder, this.note);
  }

  update(model) {
    this.lastModel = model;
    const {messages, bytes} = model.matrix();
    const n = messages.length;
    const values = this.measure === 'bytes' ? bytes : messages;
    const format = this.measure === 'bytes' ? formatBytes : formatCount;
    const max = Math.max(0, ...values.flat());
    const labels = n <= LABELS_UP_TO;
    const colTotals = new Array(n).fill(0);
    values.forEach(row => row.forEach((v, j) => { colTotals[j] += v; }));
    const total = colTotals.reduce((a, b) => a + b, 0);

    const header = el('tr', {}, el('th', {scope: 'col', class: 'corner'}, 'from ↓ to →'),
      Array.from({length: n}, (_, j) => el('th', {scope: 'col'}, String(j))),
      el('th', {scope: 'col', class: 'total'}, 'sent'));
    const rows = values.map((row, i) => el('tr', {},
      el('th', {scope: 'row'}, 'rank ' + i),
      row.map((v, j) => el('td', {class: ['cell', labels ? null : 'compact'], style: heat(v, max),
        'data-from': i, 'data-to': j, 'data-messages': messages[i][j], 'data-bytes': bytes[i][j],
        title: `rank ${i} → rank ${j}: ${messages[i][j]} message${messages[i][j] === 1 ? '' : 's'}, ${formatBytes(bytes[i][j])}`},
        labels && v ? format(v) : '')),
      el('td', {class: 'total'}, format(row.reduce((a, b) => a + b, 0)))));
    const footer = el('tr', {class: 'total'}, el('th', {scope: 'row'}, 'received'),
      colTotals.map(v => el('td', {class: 'total'}, format(v))), el('td', {class: 'total'}, format(total)));

    show(this.holder, n === 0 ? el('p', {class: 'empty'}, 'No ranks placed yet.')
      : el('table', {class: 'heatmap', id: 'matrix-table'},
          el('caption', {class: 'visually-hidden'}, `${this.measure} sent from each rank (rows) to each rank (columns)`),
          el('thead', {}, header), el('tbody', {}, rows), el('tfoot', {}, footer)));
    // the counters are the current attempt's ranks' (a restart or resume places the ranks afresh, counting from 0)
    const attempt = model.attempt > 1 ? ` in attempt ${model.attempt}` : '';
    this.note.textContent = total === 0 && model.isFinal ? `The ranks reported no messages between them${attempt}.`
      : total === 0 ? `No messages counted yet${attempt}: ranks report their counters when they end, and the engine asks running ranks for them every poll.`
      : `${format(total)} ${this.measure === 'bytes' ? 'of payload' : total === 1 ? 'message' : 'messages'} in total${attempt}`
        + `${attempt ? ' (earlier attempts not counted)' : ''}; darker is more.`;
  }
}
