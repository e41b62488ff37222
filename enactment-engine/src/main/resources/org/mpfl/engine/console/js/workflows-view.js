// Stored workflows and their versions: #/workflows lists them (latest version), #/workflows/<name>
// shows every version (number, when deployed, source SHA-256, which is latest, the service names
// it is deployed under on the hosts) with how to run one.

import { api } from './api.js';
import { el, show } from './dom.js';
import { formatTime } from './format.js';

function workflowLink(name, version) {
  return el('a', {href: '#/workflows/' + encodeURIComponent(name), 'data-workflow': name},
    name, version ? el('span', {class: 'sub'}, ' v' + version) : null);
}

/** Shows the stored workflows in container; returns a function that stops it (nothing is polled). */
export function mountWorkflowsView(container) {
  const status = el('p', {class: 'status-line', role: 'status'});
  const holder = el('div', {class: 'table-holder'});
  show(container, el('h1', {}, 'Workflows'), status, holder);
  api.workflows().then(list => {
    show(holder, !Array.isArray(list) || list.length === 0
      ? el('p', {class: 'empty'}, 'No stored workflows. Deploy one with ',
          el('code', {}, 'mpflc deploy FILE --engine ' + location.origin), '.')
      : el('table', {class: 'data workflows', id: 'workflows-table'},
          el('caption', {class: 'visually-hidden'}, 'Stored workflows'),
          el('thead', {}, el('tr', {}, ['Workflow', 'Latest version', 'Deployed'].map(h => el('th', {scope: 'col'}, h)))),
          el('tbody', {}, list.map(w => el('tr', {'data-workflow': w.name},
            el('th', {scope: 'row'}, workflowLink(w.name)),
            el('td', {class: 'num'}, 'v' + w.latestVersion),
            el('td', {}, formatTime(w.updatedMs)))))));
  }).catch(e => { status.textContent = 'Cannot list workflows: ' + e.message; });
  return () => {};
}

/** Shows one workflow's versions in container. */
export function mountWorkflowVersionsView(container, name) {
  const status = el('p', {class: 'status-line', role: 'status'});
  const holder = el('div', {class: 'table-holder'});
  show(container, el('h1', {id: 'workflow-title'}, name), status, holder);
  api.workflow(name).then(w => {
    const versions = (w.versions || []).slice().reverse();
    show(holder,
      el('p', {class: 'summary'}, `${versions.length} version${versions.length === 1 ? '' : 's'}; run the latest with `,
        el('code', {}, `mpflc run ${name} --engine ${location.origin}`), ', an older one with ',
        el('code', {}, `${name}@N`), '. ',
        el('a', {id: 'workflow-picture-link', href: '#/workflows/' + encodeURIComponent(name) + '/graph'}, 'Picture of the workflow')),
      el('table', {class: 'data versions', id: 'versions-table'},
        el('caption', {class: 'visually-hidden'}, 'Versions of ' + name + ', newest first'),
        el('thead', {}, el('tr', {}, ['Version', 'Deployed', 'Source SHA-256', 'Services on the hosts']
          .map(h => el('th', {scope: 'col'}, h)))),
        el('tbody', {}, versions.map(v => el('tr', {'data-version': v.version, 'data-latest': v.latest ? 'true' : 'false'},
          el('th', {scope: 'row'}, 'v' + v.version, v.latest ? [' ', el('span', {class: 'badge latest'}, 'latest')] : null),
          el('td', {}, formatTime(v.deployedMs)),
          el('td', {class: 'mono', title: v.sourceSha256}, String(v.sourceSha256 || '').slice(0, 12)),
          el('td', {class: 'mono'}, v.services && Object.keys(v.services).length
            ? el('ul', {class: 'chips'}, Object.entries(v.services).map(([type, n]) => el('li', {class: 'chip', title: type}, n)))
            : el('span', {class: 'sub'}, 'plain service names')))))));
  }).catch(e => { status.textContent = 'Cannot read workflow ' + name + ': ' + e.message; });
  return () => {};
}

/** A run's workflow with the version it used, linking to the workflow's versions (plain text for unstored runs). */
export function runWorkflowLabel(run) {
  if (run.workflowVersion === null || run.workflowVersion === undefined) return run.workflow || '(unnamed)';
  return workflowLink(run.workflow, run.workflowVersion);
}
