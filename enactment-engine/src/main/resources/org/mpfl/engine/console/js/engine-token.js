// The engine token, kept in sessionStorage (this tab only, gone when it closes). Mutating calls
// (cancel, retry and resume) and the audit trail send it as "Authorization: Bearer <token>".

const KEY = 'mpfl.engineToken';
const listeners = new Set();
let inMemoryToken = ''; // used when the browser refuses storage

export function currentToken() {
  try {
    return sessionStorage.getItem(KEY) || inMemoryToken;
  } catch (e) {
    return inMemoryToken;
  }
}

export function hasEngineToken() {
  return currentToken() !== '';
}

export function saveEngineToken(token) {
  const t = (token || '').trim();
  inMemoryToken = t;
  try {
    if (t) sessionStorage.setItem(KEY, t); else sessionStorage.removeItem(KEY);
  } catch (e) {
    // storage disabled: the token lives until the page is reloaded
  }
  listeners.forEach(l => l(t));
}

/** Calls listener(token) whenever the token changes; returns an unsubscribe function. */
export function onTokenChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// What the engine said about the token: 'unchecked' | 'checking' | 'accepted' | 'refused' | 'unknown'
let verdict = 'unchecked';

/**
 * Asks the engine whether it accepts the token: GET /api/registry/credentials needs the engine token
 * and changes nothing (200: accepted, 401: refused).
 */
async function checkToken(token) {
  if (!token) return 'unchecked';
  try {
    const r = await fetch('api/registry/credentials', {headers: {Accept: 'application/json', Authorization: 'Bearer ' + token}, cache: 'no-store'});
    return r.ok ? 'accepted' : r.status === 401 || r.status === 403 ? 'refused' : 'unknown';
  } catch (e) {
    return 'unknown';
  }
}

function setVerdict(v) {
  verdict = v;
  listeners.forEach(l => l(currentToken()));
}

/** The engine refused the token on an action (401): the top bar says so. */
export function markTokenRefused() {
  if (hasEngineToken()) setVerdict('refused');
}

/** Wires the token form in the top bar. */
export function bindTokenForm(form) {
  const input = form.querySelector('#token-input');
  const status = form.querySelector('#token-status');
  const forget = form.querySelector('#token-forget');
  const render = () => {
    const has = hasEngineToken();
    // "token accepted" only once the engine said so: a refused token must not look set
    status.textContent = !has ? 'no token' : {checking: 'checking…', accepted: 'token accepted', refused: 'token refused',
      unknown: 'token not checked (engine unreachable)', unchecked: 'checking…'}[verdict];
    status.dataset.set = String(has && verdict === 'accepted');
    status.dataset.verdict = has ? verdict : 'none';
    forget.disabled = !has;
  };
  const verify = async () => {
    const token = currentToken();
    if (!token) { setVerdict('unchecked'); return; }
    setVerdict('checking');
    const v = await checkToken(token);
    if (currentToken() === token) setVerdict(v);
  };
  form.addEventListener('submit', event => {
    event.preventDefault();
    saveEngineToken(input.value);
    input.value = '';
    verify();
  });
  forget.addEventListener('click', () => { saveEngineToken(''); setVerdict('unchecked'); });
  onTokenChange(render);
  render();
  verify(); // a token kept in sessionStorage from before a reload
}

/** Puts the keyboard focus on the token field (when an action needs the token). */
export function askForToken() {
  const input = document.getElementById('token-input');
  if (input) {
    input.focus();
    input.classList.add('attention');
    setTimeout(() => input.classList.remove('attention'), 2500);
  }
}
