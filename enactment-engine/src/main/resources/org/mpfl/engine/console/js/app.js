// Entry point: hash routing between the runs list, a run's detail and the registry.
//   #/runs[?state=FAILED&q=ring&param=n%3D4&from=…&to=…&sort=workflow&order=asc&page=2&size=100]   runs list
//   #/runs/<id>             run detail (live)
//   #/runs/<id>/trace       the run's trace (the JSON Perfetto opens, drawn here)
//   #/workflows/<name>[@<n>]/graph  a stored workflow's picture
//   #/workflows/<name>[@<n>]/source[?line=L]  a stored version's document, line L marked
//   #/registry              service hosts
//   #/workflows[/<name>]    stored workflows, a workflow's versions
//   #/audit[?after=ID]      the audit trail (admins)

import { bindTokenForm } from './engine-token.js';
import { showSession } from './session.js';
import { mountRunsView } from './runs-view.js';
import { mountRunDetailView } from './run-detail-view.js';
import { mountRegistryView } from './registry-view.js';
import { mountWorkflowsView, mountWorkflowVersionsView, mountWorkflowSourceView } from './workflows-view.js';
import { mountTraceView } from './trace-view.js';
import { mountWorkflowGraphView } from './workflow-graph-view.js';
import { mountAuditView } from './audit-view.js';

const view = document.getElementById('view');
let disposeCurrent = () => {};

function parseHash() {
  const hash = location.hash.replace(/^#/, '') || '/runs';
  const [path, query] = hash.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return {parts, query: new URLSearchParams(query || '')};
}

function highlightNav(section) {
  document.querySelectorAll('[data-nav]').forEach(a => {
    if (a.dataset.nav === section) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  });
}

function route() {
  disposeCurrent();
  view.replaceChildren();
  const {parts, query} = parseHash();
  if (parts[0] === 'audit') {
    highlightNav('audit');
    document.title = 'Audit trail · MPFL console';
    disposeCurrent = mountAuditView(view, query);
  } else if (parts[0] === 'registry') {
    highlightNav('registry');
    document.title = 'Registry · MPFL console';
    disposeCurrent = mountRegistryView(view);
  } else if (parts[0] === 'runs' && parts[1] && parts[2] === 'trace') {
    highlightNav('runs');
    document.title = 'Trace of run ' + parts[1] + ' · MPFL console';
    disposeCurrent = mountTraceView(view, parts[1]);
  } else if (parts[0] === 'workflows' && parts[1] && parts[2] === 'graph') {
    highlightNav('runs');
    document.title = 'Workflow ' + parts[1] + ' · MPFL console';
    disposeCurrent = mountWorkflowGraphView(view, parts[1]);
  } else if (parts[0] === 'workflows' && parts[1] && parts[2] === 'source') {
    highlightNav('workflows');
    document.title = 'Source of ' + parts[1] + ' · MPFL console';
    disposeCurrent = mountWorkflowSourceView(view, parts[1], query);
  } else if (parts[0] === 'workflows') {
    highlightNav('workflows');
    document.title = (parts[1] ? parts[1] + ' · ' : '') + 'Workflows · MPFL console';
    disposeCurrent = parts[1] ? mountWorkflowVersionsView(view, parts[1]) : mountWorkflowsView(view);
  } else if (parts[0] === 'runs' && parts[1]) {
    highlightNav('runs');
    document.title = 'Run ' + parts[1] + ' · MPFL console';
    disposeCurrent = mountRunDetailView(view, parts[1]);
  } else {
    highlightNav('runs');
    document.title = 'Runs · MPFL console';
    disposeCurrent = mountRunsView(view, query);
  }
}

bindTokenForm(document.getElementById('token-form'));
showSession(document.getElementById('session'));
window.addEventListener('hashchange', route);
route();
