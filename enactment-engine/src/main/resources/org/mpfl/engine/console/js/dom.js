// Tiny DOM helpers: build elements declaratively, without innerHTML (no injection of run data).

import { humanMessage } from './format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

function applyAttributes(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'class') {
      node.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    } else if (key === 'style' && typeof value === 'object') {
      Object.assign(node.style, value);
    } else if (key === 'text') {
      node.textContent = value;
    } else if (key === 'value' && 'value' in node) {
      node.value = value;
    } else {
      node.setAttribute(key, value === true ? '' : String(value));
    }
  }
}

function appendChildren(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: el('td', {class: 'x', 'data-rank': 3}, 'text', otherNode). */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  applyAttributes(node, attrs);
  appendChildren(node, children);
  return node;
}

/** An SVG element, same calling convention as el(). */
export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  applyAttributes(node, attrs);
  appendChildren(node, children);
  return node;
}

/** Replaces all children of node. */
export function show(node, ...children) {
  node.replaceChildren();
  appendChildren(node, children);
  return node;
}

/** A state badge (RUNNING, FAILED, …) with a class per state for colour. */
export function stateBadge(state, extraClass) {
  const s = String(state || 'UNKNOWN').toUpperCase();
  return el('span', {class: ['badge', 'state-' + s.toLowerCase(), extraClass], 'data-state': s}, s);
}

/** A progress bar for a fraction 0..1, with its percentage as text for screen readers. */
export function progressBar(fraction, label) {
  const f = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
  const pct = Math.round(f * 100);
  return el('div', {class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100,
                    'aria-valuenow': pct, 'aria-label': label || 'progress', 'data-progress': f.toFixed(4)},
    el('div', {class: 'progress-fill', style: {width: pct + '%'}}),
    el('span', {class: 'progress-text'}, pct + ' %'));
}

/**
 * A message for people (its telling line, durations in ms / s, no internal ids) with the message as
 * reported, a Java exception's frames or a traceback included, behind "details". detailKey names the
 * details so that redrawKeepingOpen() can open them again after a redraw.
 */
export function humanText(message, cls, detailKey) {
  const {text, hidden} = humanMessage(message);
  if (!hidden) return el('div', {class: cls}, el('span', {class: 'message-line'}, text));
  return el('div', {class: cls}, el('span', {class: 'message-line', title: text}, text), ' ',
    el('details', {class: 'internals', 'data-detail-key': detailKey}, el('summary', {}, 'details'), el('code', {}, String(message))));
}

/**
 * Draws holder's content anew with draw() and opens again the details (humanText's, by their key) a
 * reader had opened: live pages redraw often, and a closing "details" would be lost under the reader.
 */
export function redrawKeepingOpen(holder, draw) {
  const opened = new Set([...holder.querySelectorAll('details[open][data-detail-key]')].map(d => d.dataset.detailKey));
  draw();
  holder.querySelectorAll('details[data-detail-key]').forEach(d => { if (opened.has(d.dataset.detailKey)) d.open = true; });
}
