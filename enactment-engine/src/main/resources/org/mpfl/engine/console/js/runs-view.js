// The runs list: state, workflow, attempts, parameters, start time, duration, progress. Searched,
// filtered, sorted and paged by the engine (GET /api/runs with query parameters; the number of
// matches in X-Total-Count), so thousands of stored runs stay reachable; refreshed live.

import { api } from './api.js';
import { el, show, stateBadge, progressBar } from './dom.js';
import { errorLine, formatDuration, formatTime, formatValue, plural, sortedParams } from './format.js';
import { poll } from './polling.js';
import { runWorkflowLabel } from './workflows-view.js';
import { attemptsLabel } from './attempts-view.js';
import { FINAL_RUN_STATES } from './run-model.js';

const STATES = ['PENDING', 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
const REFRESH_MS = 1500;
const PAGE_SIZES = [25, 50, 100, 200];
const FIELDS = ['state', 'q', 'param', 'from', 'to', 'sort', 'order', 'page', 'size'];
const SORTS = {created: 'Created', workflow: 'Workflow', state: 'State', id: 'Run id'};

/** The list's query from the hash (#/runs?state=FAILED&q=ring&page=2). */
function normalised(query) {
  const q = {};
  FIELDS.forEach(f => { q[f] = query.get ? (query.get(f) || '') : (query[f] || ''); });
  q.page = Math.max(1, Number(q.page) || 1);
  q.size = PAGE_SIZES.includes(Number(q.size)) ? Number(q.size) : 50;
  return q;
}

function hashOf(q) {
  const params = new URLSearchParams();
  FIELDS.forEach(f => {
    const v = q[f];
    if (v !== '' && v !== undefined && v !== null && !(f === 'page' && v === 1) && !(f === 'size' && v === 50)) params.set(f, v);
  });
  const s = params.toString();
  return '#/runs' + (s ? '?' + s : '');
}

/**
 * A datetime-local value ("2026-11-29T02:00") as epoch ms in the browser's zone, or ''. As the end of a range (To),
 * the last millisecond of the minute (or second) it names: "To 10:15" includes a run created at 10:15:30, as the
 * reader of the list expects; the engine's `to` is inclusive to the millisecond.
 */
function localToEpoch(v, endOfRange = false) {
  if (!v) return '';
  const t = new Date(v).getTime();
  if (!Number.isFinite(t)) return '';
  const named = /T\d\d:\d\d$/.test(v) ? 60_000 : /T\d\d:\d\d:\d\d$/.test(v) ? 1000 : 1;
  return String(endOfRange ? t + named - 1 : t);
}

function epochToLocal(ms) {
  if (!ms) return '';
  const d = new Date(Number(ms));
  const p = n => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

function searchForm(q) {
  const input = (id, label, attrs) => [el('label', {for: id}, label), el('input', {id, name: id, ...attrs})];
  const form = el('form', {class: 'toolbar run-search', id: 'run-search', role: 'search'},
    el('label', {for: 'state-filter'}, 'State'),
    el('select', {id: 'state-filter', name: 'state'},
      el('option', {value: ''}, 'all states'),
      STATES.map(s => el('option', {value: s, selected: s === q.state}, s.toLowerCase()))),
    input('run-text', 'Workflow or id', {type: 'search', value: q.q, placeholder: 'ring, 7Qx…', size: 14}),
    input('run-param', 'Parameter', {type: 'search', value: q.param, placeholder: 'n=4 or 4', size: 10}),
    input('run-from', 'From', {type: 'datetime-local', value: epochToLocal(q.from)}),
    input('run-to', 'To', {type: 'datetime-local', value: epochToLocal(q.to)}),
    el('label', {for: 'run-sort'}, 'Sort'),
    el('select', {id: 'run-sort'}, Object.entries(SORTS).map(([k, name]) => el('option', {value: k, selected: k === (q.sort || 'created')}, name))),
    el('select', {id: 'run-order', 'aria-label': 'Order'},
      el('option', {value: 'desc', selected: q.order !== 'asc'}, 'descending'),
      el('option', {value: 'asc', selected: q.order === 'asc'}, 'ascending')),
    el('button', {type: 'submit'}, 'Search'),
    el('a', {href: '#/runs', class: 'button-link', id: 'run-search-clear'}, 'Clear'));
  const submit = () => {
    const v = id => form.querySelector('#' + id).value.trim();
    location.hash = hashOf({...q, state: v('state-filter'), q: v('run-text'), param: v('run-param'),
      from: localToEpoch(v('run-from')), to: localToEpoch(v('run-to'), true), sort: v('run-sort') === 'created' ? '' : v('run-sort'),
      order: v('run-order') === 'desc' ? '' : 'asc', page: 1});
  };
  form.addEventListener('submit', e => { e.preventDefault(); submit(); });
  form.querySelector('#state-filter').addEventListener('change', submit);
  form.querySelector('#run-sort').addEventListener('change', submit);
  form.querySelector('#run-order').addEventListener('change', submit);
  return form;
}

function runDuration(run) {
  if (!run.createdMs) return null;
  return (run.endedMs || Date.now()) - run.createdMs;
}

function paramsText(params) {
  const entries = sortedParams(params);
  return entries.length ? entries.map(([k, v]) => `${k}=${formatValue(v, 24)}`).join(' ') : '';
}

function runRow(run) {
  const link = el('a', {href: '#/runs/' + encodeURIComponent(run.id)}, run.workflow || '(unnamed)');
  const attempts = (run.attemptLog || []).length || run.attempts || 1;
  const params = paramsText(run.params);
  return el('tr', {'data-run-id': run.id, 'data-state': run.state},
    el('td', {class: 'col-state'}, stateBadge(run.state)),
    el('th', {scope: 'row', class: 'col-workflow'}, link, el('div', {class: 'sub mono run-id'}, run.id),
      run.workflowVersion ? el('div', {class: 'sub', 'data-workflow-version': run.workflowVersion}, 'version ', runWorkflowLabel(run)) : null),
    // a QUEUED run's size is its plan's; a run being placed (PENDING) has none yet, not 0 of them
    el('td', {class: 'num col-ranks', title: run.state === 'QUEUED' || (!run.size && !FINAL_RUN_STATES.has(run.state))
      ? 'not placed yet' : null},
      !run.size && !FINAL_RUN_STATES.has(run.state) ? '–' : (run.size ?? '–')),
    el('td', {class: 'col-attempts', 'data-attempts': attempts}, attempts > 1 || run.resumed ? attemptsLabel(run) : '1'),
    el('td', {class: 'col-params mono', title: params}, params || '–'),
    el('td', {class: 'col-started'}, formatTime(run.createdMs)),
    el('td', {class: 'num col-duration', 'data-duration': runDuration(run)}, formatDuration(runDuration(run))),
    el('td', {class: 'progress-cell col-progress'}, progressBar(run.progress, 'progress of ' + run.workflow),
      // a resumed attempt whose ranks have not reported yet: where its checkpoint was, not their own progress
      run.progressFromCheckpoint !== null && run.progressFromCheckpoint !== undefined
        ? el('div', {class: 'sub progress-from', 'data-checkpoint': run.progressFromCheckpoint}, `as at checkpoint ${run.progressFromCheckpoint}`) : null),
    // one line, cut with an ellipsis; the whole error (a Java exception's frames too) in the tooltip
    el('td', {class: 'error-cell col-cause', title: errorLine(run.error, true)}, errorLine(run.error)));
}

function refreshDurations(holder, runs) {
  for (const run of runs) {
    const cell = holder.querySelector(`tr[data-run-id="${CSS.escape(run.id)}"] td[data-duration]`);
    if (cell) cell.textContent = formatDuration(runDuration(run));
  }
}

/**
 * How to start a run here: mpflc needs the engine's admin token, from the data directory the page
 * cannot know (so it is named DATA), or from $MPFL_ENGINE_TOKEN.
 */
function emptyHint() {
  return el('div', {class: 'empty', id: 'runs-empty'},
    el('p', {}, 'No runs yet. Start one with'),
    el('pre', {}, el('code', {}, `mpflc run FILE --engine ${location.origin} --token-file DATA/engine.token`)),
    el('p', {}, 'DATA being the engine\'s data directory (', el('code', {}, '~/.mpfl/engine'), ' unless ', el('code', {}, 'mpflc up --data'),
      ' named another; or the file ', el('code', {}, 'mpflc up --token-file'), ' was given), or with the token in ',
      el('code', {}, '$MPFL_ENGINE_TOKEN'), ' instead of ', el('code', {}, '--token-file'), '.'));
}

/** The number of pages of total runs, q.size a page (1 when there are none). */
function pageCount(q, total) {
  return Math.max(1, Math.ceil(total / q.size));
}

function runsTable(runs, q, total, filtered) {
  if (runs.length === 0 && total > 0) {
    // a page past the last (an old link, or runs of a search that ended or were removed meanwhile): the runs are there
    const pages = pageCount(q, total);
    return el('p', {class: 'empty', id: 'runs-empty'}, `No runs on page ${q.page}: ${plural(total, 'run')} fill ${plural(pages, 'page')}. `,
      el('a', {href: hashOf({...q, page: pages}), id: 'runs-last-page'}, 'Go to page ' + pages), '.');
  }
  if (runs.length === 0) {
    return filtered ? el('p', {class: 'empty', id: 'runs-empty'}, 'No run matches.')
      : emptyHint();
  }
  return el('table', {class: 'data runs', id: 'runs-table'},
    el('caption', {class: 'visually-hidden'}, 'Runs'),
    el('thead', {}, el('tr', {},
      [['State', 'col-state'], ['Workflow', 'col-workflow'], ['Ranks', 'col-ranks'], ['Attempts', 'col-attempts'],
        ['Parameters', 'col-params'], ['Created', 'col-started'], ['Duration', 'col-duration'], ['Progress', 'col-progress'],
        ['Cause', 'col-cause']].map(([h, c]) => el('th', {scope: 'col', class: c}, h)))),
    el('tbody', {}, runs.map(runRow)));
}

function pager(q, total) {
  const pages = pageCount(q, total);
  const first = total === 0 ? 0 : (q.page - 1) * q.size + 1;
  const last = Math.min(total, q.page * q.size);
  const range = total === 0 ? 'no runs' : first > total ? `none of ${plural(total, 'run')}` : `${first}–${last} of ${plural(total, 'run')}`;
  const go = page => el('a', {class: 'button-link', href: hashOf({...q, page}), 'aria-label': 'page ' + page}, String(page));
  const nav = el('nav', {class: 'toolbar pager', id: 'runs-pager', 'aria-label': 'Pages of runs', 'data-total': total,
    'data-page': q.page, 'data-pages': pages},
    el('span', {id: 'runs-range'}, range),
    q.page > 1 ? el('a', {class: 'button-link', id: 'runs-prev', href: hashOf({...q, page: Math.min(q.page - 1, pages)})}, '← newer') : null,
    q.page > 2 ? go(1) : null,
    el('span', {'aria-current': 'page'}, `page ${q.page} of ${pages}`),
    q.page < pages - 1 ? go(pages) : null,
    q.page < pages ? el('a', {class: 'button-link', id: 'runs-next', href: hashOf({...q, page: q.page + 1})}, 'older →') : null,
    el('label', {for: 'runs-page-size'}, 'per page'),
    el('select', {id: 'runs-page-size', onchange: e => { location.hash = hashOf({...q, size: Number(e.target.value), page: 1}); }},
      PAGE_SIZES.map(n => el('option', {value: n, selected: n === q.size}, String(n)))));
  return nav;
}

/** Shows the runs list in container; returns a function that stops its updates. */
export function mountRunsView(container, query) {
  const q = normalised(query);
  const status = el('p', {class: 'status-line', role: 'status'});
  const tableHolder = el('div', {class: 'table-holder runs-holder'});
  const pagerHolder = el('div');
  show(container, el('h1', {}, 'Runs'), searchForm(q), status, pagerHolder, tableHolder);
  const filtered = Boolean(q.state || q.q || q.param || q.from || q.to);
  let lastSignature = null;
  return poll(async () => {
    try {
      const {body: runs, total} = await api.runsPage({state: q.state, q: q.q, param: q.param, from: q.from, to: q.to,
        sort: q.sort, order: q.order, offset: (q.page - 1) * q.size, limit: q.size});
      if (!Array.isArray(runs)) throw new Error('the engine answered without a list of runs');
      // re-render only when something but the clock moved, so focus and hover survive refreshes
      const signature = JSON.stringify([total, runs.map(r => ({...r, elapsedMs: 0}))]);
      if (signature !== lastSignature) {
        lastSignature = signature;
        show(tableHolder, runsTable(runs, q, total, filtered));
        show(pagerHolder, pager(q, total));
      } else {
        refreshDurations(tableHolder, runs);
      }
      status.textContent = '';
    } catch (e) {
      status.textContent = 'Cannot list runs: ' + e.message;
    }
  }, REFRESH_MS);
}
