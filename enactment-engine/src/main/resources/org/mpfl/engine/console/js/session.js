// Who is logged in, with a "Log in" / "Log out" link. The login itself happens on the engine
// (Authorization Code + PKCE, api/session/login): the browser holds only an HttpOnly session cookie,
// so no token is ever in a URL, in localStorage or readable by this page's scripts.

let current = null; // {user, role, projects} of the console's login, once known
let offered = false; // the engine has users and a console client: Log in is shown

/** The logged-in user ({user, role, projects}), or null: not logged in, no login configured, or not known yet. */
export function loggedIn() {
  return current;
}

/** Whether this console offers Log in (the engine has an issuer and a console client). */
export function loginOffered() {
  return offered;
}

let settle;
const known = new Promise(resolve => { settle = resolve; });

/** Resolves once the console knows whether, and as whom, it is logged in (loggedIn() then tells). */
export function sessionKnown() {
  return known;
}

export async function showSession(element) {
  try {
    await readSession(element);
  } finally {
    settle();
  }
}

async function readSession(element) {
  if (!element) return;
  let info;
  try {
    const response = await fetch('api/auth', {headers: {Accept: 'application/json'}, cache: 'no-store'});
    info = await response.json();
  } catch (e) {
    return;
  }
  element.textContent = '';
  if (!info.issuer || !info.clientId) return;
  offered = true;
  if (info.user) {
    current = {user: info.user, role: info.role, projects: info.projects || []};
    // a login acts for its user: the engine token's field would only confuse who is acting
    const tokenForm = document.getElementById('token-form');
    if (tokenForm) tokenForm.hidden = true;
    const who = document.createElement('span');
    who.id = 'session-user';
    who.textContent = `${info.user} (${info.role}${info.projects && info.projects.length ? ': ' + info.projects.join(', ') : ''})`;
    // a POST from this page: the engine takes no logout from a link or an image on another site
    const form = document.createElement('form');
    form.method = 'post';
    form.action = 'api/session/logout';
    form.className = 'logout-form';
    const button = document.createElement('button');
    button.type = 'submit';
    button.id = 'logout';
    button.textContent = 'Log out';
    form.append(button);
    element.append(who, ' ', form);
    return;
  }
  const link = document.createElement('a');
  link.href = 'api/session/login';
  link.id = 'login';
  link.textContent = 'Log in';
  element.append(link);
}
