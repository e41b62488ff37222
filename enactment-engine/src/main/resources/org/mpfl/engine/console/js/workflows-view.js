// Stored workflows and their versions: #/workflows lists them (latest version), #/workflows/<name>
// shows every version (number, when deployed, source SHA-256, which is latest, the service names
// it is deployed under on the hosts) with how to run one, #/workflows/<name>@<n>/source?line=L a
// version's document with line L marked (where a run's source locations link to).

import { api } from './api.js';
import { el, show } from './dom.js';
import { formatTime, shortLocation } from './format.js';

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
          el('td', {class: 'mono', title: v.sourceSha256}, el('a', {href: sourceHref(name.replace(/@\d+$/, '') + '@' + v.version),
            'data-source-of': v.version, 'aria-label': 'source of version ' + v.version}, String(v.sourceSha256 || '').slice(0, 12))),
          el('td', {class: 'mono'}, v.services && Object.keys(v.services).length
            ? el('ul', {class: 'chips'}, Object.entries(v.services).map(([type, n]) => el('li', {class: 'chip', title: type}, n)))
            : el('span', {class: 'sub'}, 'plain service names')))))));
  }).catch(e => { status.textContent = 'Cannot read workflow ' + name + ': ' + e.message; });
  return () => {};
}

/** The stored version a run used, as NAME@N; null for a run of a plan or document sent with it. */
export function runWorkflowRef(run) {
  return run && run.workflow && Number.isInteger(run.workflowVersion) ? run.workflow + '@' + run.workflowVersion : null;
}

function sourceHref(ref, line) {
  return '#/workflows/' + encodeURIComponent(ref) + '/source' + (line ? '?line=' + line : '');
}

const LOCATION = /^(.*):(\d+):(\d+)$/;

/**
 * A source location ("/home/u/ring.mpfl.xml:12:7") shortened to its file name, linked to that line of the document
 * of the stored version the run used; plain text for a run of a document sent with it (the engine keeps no source).
 */
export function locationLink(run, location, attributes = {}) {
  const ref = runWorkflowRef(run);
  const at = LOCATION.exec(location || '');
  if (!ref || !at) return el('code', {title: location || '', ...attributes}, shortLocation(location));
  return el('a', {href: sourceHref(ref, at[2]), class: 'source-link', title: location + ' (open the document at this line)', ...attributes},
    el('code', {}, shortLocation(location)));
}

/** Shows the document of a stored version ref (NAME@N or NAME) with line query.line marked and scrolled to. */
export function mountWorkflowSourceView(container, ref, query) {
  const name = ref.replace(/@\d+$/, '');
  const line = Number(query.get('line')) || 0;
  const status = el('p', {class: 'status-line', role: 'status'});
  const holder = el('div', {id: 'workflow-source-holder'});
  show(container, el('p', {class: 'breadcrumb'}, el('a', {href: '#/workflows/' + encodeURIComponent(name)}, '← Versions of ' + name)),
    el('h1', {id: 'workflow-source-title'}, 'Source of ', el('code', {}, ref)), status, holder);
  let live = true;
  api.workflow(ref).then(w => {
    if (!live) return;
    if (w.document === null || w.document === undefined) {
      status.textContent = `Version ${w.version} of ${name} was deployed as a plan without its MPFL document: there is no source `
        + 'to show (mpflc deploy FILE.mpfl.xml stores the document).';
      return;
    }
    const lines = w.document.replace(/\r\n?/g, '\n').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const marked = line >= 1 && line <= lines.length ? line : 0;
    show(holder,
      el('p', {class: 'sub'}, `version ${w.version} · ${lines.length} lines · SHA-256 ${String(w.sourceSha256 || '').slice(0, 12)}`,
        marked ? ` · line ${marked} marked` : line ? ` · there is no line ${line}` : ''),
      el('pre', {class: 'source', id: 'workflow-source', tabindex: '0', 'aria-label': 'document of ' + ref},
        lines.map((text, i) => el('span', {class: 'source-line' + (i + 1 === marked ? ' marked' : ''), id: 'source-line-' + (i + 1),
          'data-line': i + 1, ...(i + 1 === marked ? {'aria-current': 'location'} : {})},
          el('span', {class: 'line-no', 'aria-hidden': 'true'}, String(i + 1)), text + '\n'))));
    if (marked) document.getElementById('source-line-' + marked).scrollIntoView({block: 'center'});
  }).catch(e => { if (live) status.textContent = 'Cannot read workflow ' + ref + ': ' + e.message; });
  return () => { live = false; };
}

/** A run's workflow with the version it used, linking to the workflow's versions (plain text for unstored runs). */
export function runWorkflowLabel(run) {
  if (run.workflowVersion === null || run.workflowVersion === undefined) return run.workflow || '(unnamed)';
  return workflowLink(run.workflow, run.workflowVersion);
}
