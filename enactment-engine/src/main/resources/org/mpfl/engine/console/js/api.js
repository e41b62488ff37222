// JSON calls to the engine's REST API (same origin as the console).

import { currentToken } from './engine-token.js';
import { loginOffered } from './session.js';

/** A failed API call: HTTP status and the engine's error message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function readAnswer(response) {
  const text = await response.text();
  let body = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch (e) {
      body = {error: text};
    }
  }
  if (!response.ok) {
    let message = (body && body.error) || `HTTP ${response.status}`;
    if (response.status === 401 && !currentToken() && loginOffered()) {
      // the engine's words are for API clients ("needs 'Authorization: Bearer <token>'"); a person here logs in
      message = 'you are not logged in: Log in (top bar) to see this';
    }
    throw new ApiError(response.status, message);
  }
  return body;
}

/** GET of a list page: {body, total} with the X-Total-Count header's number. */
export async function getPage(path) {
  const response = await fetch(path, {headers: {Accept: 'application/json'}, cache: 'no-store'});
  const body = await readAnswer(response);
  const total = Number(response.headers.get('X-Total-Count'));
  return {body, total: Number.isFinite(total) && response.headers.has('X-Total-Count') ? total : (body || []).length};
}

export async function getJson(path) {
  const response = await fetch(path, {headers: {Accept: 'application/json'}, cache: 'no-store'});
  return readAnswer(response);
}

/** GET with the engine token as bearer when one is saved (admin-only reads; a login's cookie goes along anyway). */
export async function getWithToken(path) {
  const headers = {Accept: 'application/json'};
  const token = currentToken();
  if (token) headers.Authorization = 'Bearer ' + token;
  const response = await fetch(path, {headers, cache: 'no-store'});
  return readAnswer(response);
}

/** POST with the engine token as bearer (mutating endpoints require it). */
export async function postWithToken(path, body) {
  const headers = {Accept: 'application/json'};
  const token = currentToken();
  if (token) headers.Authorization = 'Bearer ' + token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body)});
  return readAnswer(response);
}

export const api = {
  runs: state => getJson('api/runs' + (state ? '?state=' + encodeURIComponent(state) : '')),
  /** A page of runs: query {state, q, workflow, param, from, to, sort, order, offset, limit} → {body, total}. */
  runsPage: query => {
    const params = new URLSearchParams();
    Object.entries(query).forEach(([k, v]) => { if (v !== undefined && v !== null && v !== '') params.set(k, v); });
    return getPage('api/runs?' + params);
  },
  run: id => getJson('api/runs/' + encodeURIComponent(id)),
  runHistory: (id, afterId, limit = 10000) =>
    getJson(`api/runs/${encodeURIComponent(id)}/log?after=${afterId}&limit=${limit}`),
  trace: id => getJson('api/runs/' + encodeURIComponent(id) + '/trace'),
  cancelRun: id => postWithToken('api/runs/' + encodeURIComponent(id) + '/cancel'),
  resumeRun: id => postWithToken('api/runs/' + encodeURIComponent(id) + '/resume'),
  // admins' reads (open on a local engine): the engine token goes along when one is saved, as for the audit trail
  hosts: () => getWithToken('api/registry/hosts'),
  capacity: () => getWithToken('api/capacity'),
  engine: () => getJson('api/engine'),
  workflows: () => getJson('api/workflows'),
  workflow: name => getJson('api/workflows/' + encodeURIComponent(name)),
  audit: (after, limit) => getWithToken(`api/audit?after=${after}&limit=${limit}`),
  eventStreamUrl: id => 'api/runs/' + encodeURIComponent(id) + '/events',
};
