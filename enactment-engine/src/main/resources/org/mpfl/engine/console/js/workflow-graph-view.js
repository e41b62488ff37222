// A stored (deployed) workflow's picture: processes, messages and collectives between them, as the
// engine draws it (GET /api/workflows/{name}/graph: SVG rendered by Graphviz on the engine; the same
// DOT as `mpflc graph`). Without Graphviz on the engine it shows the engine's reason and the DOT text.

import { getJson, ApiError } from './api.js';
import { el, show } from './dom.js';

export function mountWorkflowGraphView(container, name) {
  const base = 'api/workflows/' + encodeURIComponent(name) + '/graph';
  const body = el('div', {id: 'workflow-graph-body'}, el('p', {class: 'empty'}, 'Drawing…'));
  show(container,
    el('p', {class: 'breadcrumb'}, el('a', {href: '#/runs'}, '← Runs')),
    el('section', {class: 'panel', id: 'graph-section'},
      el('div', {class: 'title-row'}, el('h1', {}, 'Workflow ', el('code', {}, name)),
        el('a', {class: 'button-link', id: 'graph-dot', href: base + '?format=dot', download: name + '.dot'}, 'Download DOT')),
      el('p', {class: 'sub'}, 'Boxes are processes (rank count, service); orange arrows are messages (how many, and where they are sent); '
        + 'green ellipses are collectives over a communicator. Counted by the communication check with the parameters’ defaults.'),
      body));
  let disposed = false;
  // fetched rather than <img src>: a missing Graphviz or a workflow without document has a message to show
  fetch(base + '?format=svg', {cache: 'no-store'}).then(async response => {
    if (disposed) return;
    if (response.ok) {
      const url = URL.createObjectURL(await response.blob());
      // an <img> renders the SVG without running anything in it
      const img = el('img', {id: 'workflow-graph', src: url, alt: 'graph of workflow ' + name, class: 'workflow-graph'});
      // Graphviz sizes for print (72 dpi): half as large again reads better on a screen
      img.addEventListener('load', () => { img.width = Math.round(img.naturalWidth * 1.5); });
      show(body, img);
      return;
    }
    let message = 'HTTP ' + response.status;
    try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
    const parts = [el('p', {class: 'status-line', id: 'graph-error'}, message)];
    if (response.status === 503) {
      const dot = await fetch(base + '?format=dot').then(r => r.ok ? r.text() : '');
      if (dot) parts.push(el('pre', {id: 'graph-dot-text', class: 'dot-text'}, dot));
    }
    show(body, ...parts);
  }).catch(e => {
    if (!disposed) show(body, el('p', {class: 'status-line', id: 'graph-error'}, e instanceof ApiError ? e.message : String(e)));
  });
  return () => { disposed = true; };
}

/** Whether the engine stores a workflow of that name (for the link from a run). */
export async function workflowStored(name) {
  try {
    await getJson('api/workflows/' + encodeURIComponent(name));
    return true;
  } catch (e) {
    return false;
  }
}
