// The engine token, kept in sessionStorage (this tab only, gone when it closes). Mutating calls
// (cancel) send it as "Authorization: Bearer <token>".

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

/** Wires the token form in the top bar. */
export function bindTokenForm(form) {
  const input = form.querySelector('#token-input');
  const status = form.querySelector('#token-status');
  const forget = form.querySelector('#token-forget');
  const render = () => {
    status.textContent = hasEngineToken() ? 'token set' : 'no token';
    status.dataset.set = String(hasEngineToken());
    forget.disabled = !hasEngineToken();
  };
  form.addEventListener('submit', event => {
    event.preventDefault();
    saveEngineToken(input.value);
    input.value = '';
  });
  forget.addEventListener('click', () => saveEngineToken(''));
  onTokenChange(render);
  render();
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
