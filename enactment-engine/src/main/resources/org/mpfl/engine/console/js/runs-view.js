// The runs list: state, workflow, start time, duration, progress; filter by state; refreshed live.

import { api } from './api.js';
import { el, show, stateBadge, progressBar } from './dom.js';
import { formatDuration, formatTime } from './format.js';
import { poll } from './polling.js';
import { runWorkflowLabel } from './workflows-view.js';

const STATES = ['PENDING', 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
const REFRESH_MS = 1500;

function stateFilter(selected) {
  const select = el('select', {id: 'state-filter', name: 'state'},
    el('option', {value: ''}, 'all states'),
    STATES.map(s => el('option', {value: s, selected: s === selected}, s.toLowerCase())));
  select.addEventListener('change', () => {
    location.hash = '#/runs' + (select.value ? '?state=' + select.value : '');
  });
  return el('div', {class: 'toolbar'}, el('label', {for: 'state-filter'}, 'State'), select);
}

function runDuration(run) {
  const start = run.startedMs || run.createdMs;
  const end = run.endedMs || Date.now();
  return end - start;
}

function runRow(run) {
  const link = el('a', {href: '#/runs/' + encodeURIComponent(run.id)}, run.workflow || '(unnamed)');
  return el('tr', {'data-run-id': run.id, 'data-state': run.state},
    el('td', {}, stateBadge(run.state)),
    el('th', {scope: 'row'}, link, el('div', {class: 'sub mono'}, run.id),
      run.workflowVersion ? el('div', {class: 'sub', 'data-workflow-version': run.workflowVersion}, 'version ', runWorkflowLabel(run)) : null),
    el('td', {class: 'num'}, run.size ?? '–'),
    el('td', {}, formatTime(run.startedMs || run.createdMs)),
    el('td', {class: 'num', 'data-duration': runDuration(run)}, formatDuration(runDuration(run))),
    el('td', {class: 'progress-cell'}, progressBar(run.progress, 'progress of ' + run.workflow)),
    el('td', {class: 'error-cell'}, run.error && run.error.message ? run.error.message : ''));
}

function refreshDurations(holder, runs) {
  for (const run of runs) {
    const cell = holder.querySelector(`tr[data-run-id="${CSS.escape(run.id)}"] td[data-duration]`);
    if (cell) cell.textContent = formatDuration(runDuration(run));
  }
}

function runsTable(runs) {
  if (runs.length === 0) {
    return el('p', {class: 'empty', id: 'runs-empty'}, 'No runs yet. Start one with ',
      el('code', {}, 'mpflc run FILE --engine ' + location.origin), '.');
  }
  return el('table', {class: 'data runs', id: 'runs-table'},
    el('caption', {class: 'visually-hidden'}, 'Runs, newest first'),
    el('thead', {}, el('tr', {},
      ['State', 'Workflow', 'Ranks', 'Started', 'Duration', 'Progress', 'Cause'].map(h => el('th', {scope: 'col'}, h)))),
    el('tbody', {}, runs.map(runRow)));
}

/** Shows the runs list in container; returns a function that stops its updates. */
export function mountRunsView(container, {state}) {
  const status = el('p', {class: 'status-line', role: 'status'});
  const tableHolder = el('div', {class: 'table-holder'});
  show(container, el('h1', {}, 'Runs'), stateFilter(state), status, tableHolder);
  let lastSignature = null;
  return poll(async () => {
    try {
      const runs = await api.runs(state);
      if (!Array.isArray(runs)) throw new Error('the engine answered without a list of runs');
      // re-render only when something but the clock moved, so focus and hover survive refreshes
      const signature = JSON.stringify(runs.map(r => ({...r, elapsedMs: 0})));
      if (signature !== lastSignature) {
        lastSignature = signature;
        show(tableHolder, runsTable(runs));
      } else {
        refreshDurations(tableHolder, runs);
      }
      status.textContent = '';
    } catch (e) {
      status.textContent = 'Cannot list runs: ' + e.message;
    }
  }, REFRESH_MS);
}
