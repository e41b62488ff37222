// A run's trace as the engine exports it (GET /api/runs/{id}/trace, Chrome Trace Event JSON): one
// group of tracks per rank (its "activity (sampled)" lane — the timeline's segments — and its
// operations: compute, send, receive, collectives with peer and bytes), instant events for ends,
// faults and checkpoints, and a download of the same JSON for Perfetto / chrome://tracing.

import { api, ApiError } from './api.js';
import { el, svg, show } from './dom.js';
import { formatDuration } from './format.js';
import { showUnknownRun } from './run-detail-view.js';

const LABEL_WIDTH = 210;
const ROW = 18;
const GAP = 8;
const COLOURS = {
  compute: 'var(--compute)', send: '#e07b00', receive: 'var(--wait)', sendrecv: '#b65f00', wait: '#c2410c',
  collective: '#2f855a', communicator: '#6b46c1', activity: '#94a3b8', running: 'var(--running-seg)',
};

/** Diamonds: a rank's end, a fault, a checkpoint (in the rank's checkpoints lane). */
const INSTANT_COLOURS = {done: 'var(--succeeded)', aborted: 'var(--cancelled)', fault: 'var(--failed)', checkpoint: '#6b46c1'};

/** The tracks of a trace: {pid, tid, name, spans, instants} in pid, tid order. */
export function tracks(trace) {
  const names = new Map();
  const threads = new Map();
  const key = (pid, tid) => pid + '/' + tid;
  const track = (pid, tid) => {
    if (!threads.has(key(pid, tid))) threads.set(key(pid, tid), {pid, tid, name: '', spans: [], instants: []});
    return threads.get(key(pid, tid));
  };
  for (const e of trace.traceEvents || []) {
    if (e.ph === 'M' && e.name === 'process_name') names.set(e.pid, e.args.name);
    else if (e.ph === 'M' && e.name === 'thread_name') track(e.pid, e.tid).name = e.args.name;
    else if (e.ph === 'X') track(e.pid, e.tid).spans.push(e);
    else if (e.ph === 'i' || e.ph === 'I') track(e.pid, e.tid).instants.push(e);
  }
  return [...threads.values()]
    .filter(t => t.pid > 0 && (t.spans.length || t.instants.length))
    .sort((a, b) => a.pid - b.pid || a.tid - b.tid)
    .map(t => ({...t, process: names.get(t.pid) || 'pid ' + t.pid}));
}

function describe(e) {
  const a = e.args || {};
  const parts = [e.name, formatDuration(e.dur / 1000)];
  if (a.peer !== undefined) parts.push((e.cat === 'receive' ? 'from rank ' : 'peer rank ') + a.peer);
  if (a.tag !== undefined) parts.push('tag ' + a.tag);
  if (a.bytes !== undefined) parts.push(a.bytes + ' B');
  if (a.location) parts.push(a.location);
  return parts.join(' · ');
}

/** Shows the trace of run runId in container; returns a disposer. */
export function mountTraceView(container, runId) {
  const href = 'api/runs/' + encodeURIComponent(runId) + '/trace';
  const body = el('div', {id: 'trace', class: 'trace'}, el('p', {class: 'empty'}, 'Loading the trace…'));
  const back = el('a', {href: '#/runs/' + encodeURIComponent(runId), id: 'trace-back'}, '← Run ' + runId);
  const title = el('h1', {id: 'trace-title'}, 'Trace of run ', el('code', {}, runId));
  show(container,
    el('p', {class: 'breadcrumb'}, back),
    el('section', {class: 'panel', id: 'trace-section'},
      el('div', {class: 'title-row'}, title,
        el('a', {class: 'button-link', id: 'trace-download-2', href, download: runId + '.trace.json'}, 'Download JSON (Perfetto, chrome://tracing)')),
      el('p', {class: 'sub'}, 'Every rank: its sampled activity (the timeline’s lane) and its operations with peer, tag and bytes. Hover a span for details.'),
      body));
  let disposed = false;
  // named as the run page is, by its workflow: an id alone says little
  api.run(runId).then(run => {
    if (disposed || !run || !run.workflow) return;
    show(title, `Trace of ${run.workflow} · run `, el('code', {}, runId));
    show(back, `← ${run.workflow} · run ${runId}`);
    document.title = `Trace of ${run.workflow} · MPFL console`;
  }).catch(() => {});
  api.trace(runId).then(trace => {
    if (!disposed) render(body, trace);
  }).catch(e => {
    if (disposed) return;
    // an id the engine does not know: one line, as on its run page, not a download and a legend of no run
    if (e instanceof ApiError && e.status === 404 && /^no run\b/.test(e.message)) showUnknownRun(container, runId);
    else show(body, el('p', {class: 'status-line', id: 'trace-error'}, 'No trace: ' + e.message));
  });
  return () => { disposed = true; };
}

function render(body, trace) {
  const list = tracks(trace);
  if (list.length === 0) {
    show(body, el('p', {class: 'empty', id: 'trace-empty'}, 'The run reported no events yet.'));
    return;
  }
  let end = 1;
  for (const t of list) {
    for (const s of t.spans) end = Math.max(end, s.ts + s.dur);
    for (const i of t.instants) end = Math.max(end, i.ts);
  }
  const width = Math.max(600, (body.clientWidth || 1200) - 10);
  const plot = width - LABEL_WIDTH - 10;
  const x = ts => LABEL_WIDTH + (ts / end) * plot;
  const rows = [];
  let y = 20;
  // checkpoints get a lane of their own per rank: hundreds of diamonds would hide the operations
  const byPid = new Map();
  for (const t of list) {
    if (!byPid.has(t.pid)) byPid.set(t.pid, {process: t.process, tracks: [], checkpoints: []});
    const group = byPid.get(t.pid);
    group.checkpoints.push(...t.instants.filter(i => i.name === 'checkpoint'));
    group.tracks.push({...t, instants: t.instants.filter(i => i.name !== 'checkpoint')});
  }
  const diamond = (i, cx, top) => svg('path', {class: 'instant', d: `M${cx} ${top + 2} l5 7 l-5 7 l-5 -7 z`, 'data-name': i.name,
    fill: INSTANT_COLOURS[i.name] || 'var(--succeeded)'},
  svg('title', {}, i.name + (i.args && i.args.message ? ': ' + i.args.message : '')
    + (i.args && i.args.value && i.args.value.checkpoint !== undefined ? ' ' + i.args.value.checkpoint : '') + (i.args && i.args.location ? ' · ' + i.args.location : '')));
  let first = true;
  for (const [pid, group] of byPid) {
    y += first ? 0 : GAP;
    first = false;
    rows.push(svg('text', {x: 4, y: y + 12, class: 'trace-process'}, group.process));
    y += ROW;
    for (const t of group.tracks) {
      if (t.spans.length === 0 && t.instants.length === 0) continue;
      const g = svg('g', {class: 'trace-track', 'data-pid': t.pid, 'data-tid': t.tid});
      g.append(svg('text', {x: 16, y: y + 12, class: 'trace-thread'}, t.name || 'thread ' + t.tid));
      for (const s of t.spans) {
        g.append(svg('rect', {class: 'span', x: x(s.ts), y: y + 2, width: Math.max(1, x(s.ts + s.dur) - x(s.ts)), height: ROW - 4,
          fill: COLOURS[s.cat] || '#64748b', 'data-cat': s.cat, 'data-rank': t.pid - 1},
        svg('title', {}, describe(s))));
      }
      for (const i of t.instants) g.append(diamond(i, x(i.ts), y));
      rows.push(g);
      y += ROW;
    }
    if (group.checkpoints.length) {
      const g = svg('g', {class: 'trace-track checkpoint-lane', 'data-pid': pid, 'data-checkpoints': group.checkpoints.length});
      g.append(svg('text', {x: 16, y: y + 12, class: 'trace-thread'}, `checkpoints (${group.checkpoints.length})`));
      let drawnUntil = -Infinity; // one diamond per 4 px: thousands of checkpoints stay one lane
      for (const i of group.checkpoints) {
        const cx = x(i.ts);
        if (cx < drawnUntil + 4) continue;
        drawnUntil = cx;
        g.append(diamond(i, cx, y));
      }
      rows.push(g);
      y += ROW;
    }
  }
  const axis = [];
  for (let k = 0; k <= 5; k++) {
    const ts = end * k / 5;
    axis.push(svg('line', {x1: x(ts), x2: x(ts), y1: 14, y2: y, class: 'trace-grid'}));
    axis.push(svg('text', {x: x(ts), y: 10, class: 'trace-tick', 'text-anchor': k === 5 ? 'end' : 'middle'}, '+' + formatDuration(ts / 1000)));
  }
  const legend = el('p', {class: 'trace-legend', id: 'trace-legend'}, ...Object.entries(COLOURS).filter(([k]) => k !== 'running')
    .map(([k, c]) => el('span', {class: 'legend-item'}, el('span', {class: 'swatch', style: {background: c}}), k)),
    ...Object.entries(INSTANT_COLOURS).map(([k, c]) => el('span', {class: 'legend-item', 'data-instant': k},
      el('span', {class: 'swatch diamond', style: {background: c}}), k === 'done' ? 'rank done' : k === 'aborted' ? 'rank aborted' : k)));
  show(body, legend, svg('svg', {width, height: y + 6, role: 'img', 'aria-label': 'trace of the run', class: 'trace-svg'}, ...axis, ...rows));
}
