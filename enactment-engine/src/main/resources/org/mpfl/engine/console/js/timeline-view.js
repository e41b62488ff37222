// The per-rank timeline as SVG: one lane per rank with compute / communicate / wait segments,
// zoomable with the mouse wheel, the +/− buttons or the keyboard (+, −, 0, ←, →), pannable by dragging.

import { el, svg, show } from './dom.js';
import { formatClock, formatClockWithZone, formatDuration, shortLocation } from './format.js';
import { attemptEnd } from './attempts-view.js';

const LABEL_WIDTH = 70;
const LANE_HEIGHT = 20;
const LANE_GAP = 6;
const AXIS_HEIGHT = 24;
const BAND_ROW = 18;           // the attempts' labels, when the run had more than one
const RIGHT_PAD = 12;
const MIN_SPAN_MS = 5;
const KIND_NAMES = {compute: 'compute', communicate: 'communicate', wait: 'wait', running: 'running (no activity reported)'};

/** Round step of about span/targetTicks: 1, 2 or 5 × 10^k ms. */
function niceStep(spanMs, targetTicks) {
  const raw = spanMs / targetTicks;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

/** The longest of the labels (longest first) that fits in width px, as a list of zero or one. */
function fitting(labels, width) {
  const label = labels.find(l => width > l.length * 6 + 8);
  return label ? [label] : [];
}

function relative(ms) {
  if (Math.abs(ms) < 1000) return '+' + Math.round(ms) + ' ms';
  return '+' + (ms / 1000).toFixed(ms < 10_000 ? 2 : 1) + ' s';
}

export class TimelineView {
  constructor(timeline) {
    this.timeline = timeline;
    this.view = null;            // {startMs, endMs} when zoomed; null: fit the whole run
    this.lastFull = null;
    this.lastModel = null;
    this.canvas = el('div', {class: 'timeline-canvas'});
    this.caption = el('p', {class: 'timeline-range', 'aria-live': 'polite'});
    const button = (label, text, action, id) => el('button', {type: 'button', 'aria-label': label, title: label, id,
      onclick: () => { action(); this.redraw(); }}, text);
    this.element = el('div', {class: 'timeline', id: 'timeline'},
      el('div', {class: 'toolbar'},
        button('Zoom in', '+', () => this.zoom(0.5), 'timeline-zoom-in'),
        button('Zoom out', '−', () => this.zoom(2), 'timeline-zoom-out'),
        button('Show the whole run', 'Fit', () => { this.view = null; }, 'timeline-fit'),
        this.caption),
      this.canvas,
      el('ul', {class: 'legend', 'aria-label': 'Timeline colours'},
        Object.entries(KIND_NAMES).map(([k, name]) => el('li', {}, el('span', {class: 'swatch seg-' + k}), name)),
        el('li', {}, el('span', {class: 'marker-sample failed'}, '✕'), 'failed'),
        el('li', {}, el('span', {class: 'marker-sample done'}, '|'), 'done')));
    this.installGestures();
  }

  /** The time range of the whole run. */
  fullRange(model) {
    const run = model.run || {};
    const extent = this.timeline.extent();
    let start = run.createdMs || run.startedMs || (extent ? extent.minMs : Date.now());
    if (extent) start = Math.min(start, extent.minMs);
    let end = run.endedMs || Date.now();
    if (extent) end = Math.max(end, extent.maxMs);
    if (end - start < MIN_SPAN_MS * 20) end = start + MIN_SPAN_MS * 20;
    return {startMs: start, endMs: end};
  }

  visibleRange() {
    return this.view || this.lastFull;
  }

  zoom(factor, anchorFraction = 0.5) {
    const v = this.visibleRange();
    if (!v) return;
    const span = Math.max(MIN_SPAN_MS, (v.endMs - v.startMs) * factor);
    const anchor = v.startMs + (v.endMs - v.startMs) * anchorFraction;
    this.setView(anchor - span * anchorFraction, anchor - span * anchorFraction + span);
  }

  pan(fraction) {
    const v = this.visibleRange();
    if (!v) return;
    const shift = (v.endMs - v.startMs) * fraction;
    this.setView(v.startMs + shift, v.endMs + shift);
  }

  setView(startMs, endMs) {
    const full = this.lastFull;
    if (full && startMs <= full.startMs && endMs >= full.endMs) {
      this.view = null; // zoomed out past the whole run: back to fitting it
      return;
    }
    this.view = {startMs, endMs};
  }

  installGestures() {
    const plotFraction = clientX => {
      const box = this.canvas.getBoundingClientRect();
      const plotWidth = Math.max(1, box.width - LABEL_WIDTH - RIGHT_PAD);
      return Math.max(0, Math.min(1, (clientX - box.left - LABEL_WIDTH) / plotWidth));
    };
    this.canvas.addEventListener('wheel', event => {
      event.preventDefault();
      this.zoom(event.deltaY < 0 ? 0.8 : 1.25, plotFraction(event.clientX));
      this.redraw();
    }, {passive: false});
    let drag = null;
    this.canvas.addEventListener('pointerdown', event => {
      drag = {x: event.clientX, range: {...this.visibleRange()}, width: this.canvas.getBoundingClientRect().width - LABEL_WIDTH - RIGHT_PAD};
      this.canvas.setPointerCapture(event.pointerId);
    });
    this.canvas.addEventListener('pointermove', event => {
      if (!drag || !drag.range) return;
      const shift = -(event.clientX - drag.x) / Math.max(1, drag.width) * (drag.range.endMs - drag.range.startMs);
      this.view = {startMs: drag.range.startMs + shift, endMs: drag.range.endMs + shift};
      this.redraw();
    });
    const endDrag = () => { drag = null; };
    this.canvas.addEventListener('pointerup', endDrag);
    this.canvas.addEventListener('pointercancel', endDrag);
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute('aria-label', 'Timeline: + and − zoom, 0 shows the whole run, arrow keys pan');
    this.canvas.addEventListener('keydown', event => {
      const actions = {'+': () => this.zoom(0.5), '=': () => this.zoom(0.5), '-': () => this.zoom(2),
        '0': () => { this.view = null; }, ArrowLeft: () => this.pan(-0.2), ArrowRight: () => this.pan(0.2)};
      if (actions[event.key]) {
        event.preventDefault();
        actions[event.key]();
        this.redraw();
      }
    });
  }

  redraw() {
    if (this.lastModel) this.update(this.lastModel);
  }

  /** Draws the timeline for the run model's ranks. */
  update(model) {
    this.lastModel = model;
    this.lastFull = this.fullRange(model);
    const {startMs, endMs} = this.visibleRange();
    const width = Math.max(420, this.canvas.clientWidth || 800);
    const plotWidth = width - LABEL_WIDTH - RIGHT_PAD;
    const ranks = model.ranks.map(r => r.rank);
    const run = model.run || {};
    const attempts = (run.attemptLog || []).length > 1 ? run.attemptLog : [];
    const top = AXIS_HEIGHT + (attempts.length ? BAND_ROW : 0);
    const height = top + Math.max(1, ranks.length) * (LANE_HEIGHT + LANE_GAP) + 4;
    const x = t => LABEL_WIDTH + (t - startMs) / (endMs - startMs) * plotWidth;
    const origin = this.lastFull.startMs;
    const openEnd = model.run && model.run.endedMs ? model.run.endedMs : Date.now();
    const bands = attempts.map((a, i) => {
      const end = attemptEnd(run, a, model.isFinal) || openEnd;
      const state = a.outcome || (i === attempts.length - 1 ? run.state : 'INTERRUPTED');
      const x1 = Math.max(LABEL_WIDTH, x(a.startMs));
      const x2 = Math.min(LABEL_WIDTH + plotWidth, x(end));
      if (x2 <= x1) return null;
      const label = `attempt ${a.attempt} · ${String(state).toLowerCase()}`;
      const tip = `attempt ${a.attempt} (${a.cause}): ${state}, ${formatDuration(end - a.startMs)} (${formatClock(a.startMs)} – ${formatClockWithZone(end)})`;
      return svg('g', {class: 'attempt-band band-' + String(state).toLowerCase(), 'data-attempt': a.attempt, 'data-outcome': state},
        svg('rect', {class: 'band-bg', x: x1, y: AXIS_HEIGHT, width: x2 - x1, height: height - AXIS_HEIGHT}, svg('title', {}, tip)),
        svg('line', {class: 'band-edge', x1, x2: x1, y1: AXIS_HEIGHT, y2: height}),
        fitting([label, `#${a.attempt} · ${String(state).toLowerCase()}`, '#' + a.attempt], x2 - x1)
          .map(text => svg('text', {class: 'band-label', x: x1 + 4, y: AXIS_HEIGHT + BAND_ROW - 5}, text)));
    }).filter(Boolean);

    const axis = [];
    const step = niceStep(endMs - startMs, Math.max(2, Math.floor(plotWidth / 110)));
    const firstTick = Math.ceil((startMs - origin) / step) * step + origin;
    for (let t = firstTick; t <= endMs; t += step) {
      const tx = x(t);
      axis.push(svg('line', {class: 'tick', x1: tx, x2: tx, y1: AXIS_HEIGHT - 4, y2: height}));
      axis.push(svg('text', {class: 'tick-label', x: tx, y: AXIS_HEIGHT - 8, 'text-anchor': 'middle'}, relative(t - origin)));
    }

    const attemptEnds = (run.attemptLog || []).map(a => a.endMs).filter(Number.isFinite).sort((a, b) => a - b);
    const lanes = ranks.map((rank, i) => {
      const y = top + i * (LANE_HEIGHT + LANE_GAP);
      const {segments, markers} = this.timeline.lane(rank, openEnd, attemptEnds);
      const shapes = [];
      let drawnUntil = -Infinity; // a long run has far more segments than pixels: draw each pixel once
      for (const s of segments) {
        if (s.endMs < startMs || s.startMs > endMs) continue;
        const x1 = Math.max(LABEL_WIDTH, x(s.startMs), drawnUntil);
        const x2 = Math.min(LABEL_WIDTH + plotWidth, x(s.endMs));
        if (x2 <= drawnUntil + 0.5) continue;
        const w = Math.max(1, x2 - x1);
        drawnUntil = x1 + w;
        const tip = `rank ${rank} · ${KIND_NAMES[s.kind] || s.kind} · ${s.label}${s.location ? ' at ' + shortLocation(s.location) : ''}\n`
          + `${formatDuration(s.endMs - s.startMs)}${s.open ? ' so far' : ''} (${s.open ? formatClockWithZone(s.startMs) + ' – now' : formatClock(s.startMs) + ' – ' + formatClockWithZone(s.endMs)})`;
        shapes.push(svg('rect', {class: 'seg seg-' + s.kind, x: x1, y: y + 2, width: w, height: LANE_HEIGHT - 4,
          'data-rank': rank, 'data-kind': s.kind}, svg('title', {}, tip)));
        const text = s.label.replace(/^waits: /, '');
        if (w > text.length * 6.2 + 8) {
          shapes.push(svg('text', {class: ['seg-label', s.kind === 'wait' ? 'on-wait' : null], x: x1 + 4, y: y + LANE_HEIGHT - 6}, text));
        }
      }
      for (const m of markers) {
        if (m.timeMs < startMs || m.timeMs > endMs) continue;
        const mx = x(m.timeMs);
        // the ✕ sits on a white disc: over a red wait segment a red ✕ alone is invisible (1:1)
        shapes.push(m.kind === 'failed'
          ? svg('g', {class: 'marker failed', 'data-rank': rank},
              svg('circle', {class: 'marker-disc', cx: mx, cy: y + LANE_HEIGHT / 2, r: 7}),
              svg('text', {class: 'marker-glyph', x: mx, y: y + LANE_HEIGHT - 5, 'text-anchor': 'middle'}, '✕'), svg('title', {}, m.label))
          : svg('line', {class: 'marker ' + m.kind, x1: mx, x2: mx, y1: y, y2: y + LANE_HEIGHT}, svg('title', {}, m.label)));
      }
      return svg('g', {class: 'lane', 'data-rank': rank},
        svg('text', {class: 'lane-label', x: 8, y: y + LANE_HEIGHT - 6}, 'rank ' + rank),
        svg('rect', {class: 'lane-bg', x: LABEL_WIDTH, y, width: plotWidth, height: LANE_HEIGHT}),
        svg('g', {'clip-path': 'url(#timeline-plot)'}, shapes));
    });

    show(this.canvas, svg('svg', {width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
      'aria-label': `Timeline of ${ranks.length} ranks from ${relative(startMs - origin)} to ${relative(endMs - origin)}`},
      svg('defs', {}, svg('clipPath', {id: 'timeline-plot'}, svg('rect', {x: LABEL_WIDTH, y: 0, width: plotWidth, height}))),
      svg('g', {class: 'attempt-bands', 'clip-path': 'url(#timeline-plot)'}, bands),
      svg('g', {class: 'axis'}, axis),
      lanes));
    const full = this.lastFull;
    // the run's own time, as the header's wall time says it: the lanes may reach past it (the ranks' last events after
    // the run ended, a host's clock ahead of the engine's), which is said rather than counted as the run's
    const runEnd = run.endedMs || Date.now();
    const runMs = run.createdMs ? runEnd - run.createdMs : full.endMs - full.startMs;
    const past = run.createdMs && run.endedMs ? full.endMs - runEnd : 0;
    this.caption.textContent = this.view
      ? `showing ${relative(startMs - origin)} to ${relative(endMs - origin)} of ${formatDuration(full.endMs - full.startMs)}`
      : `whole run: ${formatDuration(runMs)}`
        + (past > MIN_SPAN_MS * 20 ? ` · the ranks' events reach ${formatDuration(past)} past its end` : '');
  }
}
