// Who is logged in, with a "Log in" / "Log out" link. The login itself happens on the engine
// (Authorization Code + PKCE, api/session/login): the browser holds only an HttpOnly session cookie,
// so no token is ever in a URL, in localStorage or readable by this page's scripts.

let current = null; // {user, role, projects} of the console's login, once known

/** The logged-in user ({user, role, projects}), or null: not logged in, no login configured, or not known yet. */
export function loggedIn() {
  return current;
}

export async function showSession(element) {
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
  const link = document.createElement('a');
  if (info.user) {
    current = {user: info.user, role: info.role, projects: info.projects || []};
    const who = document.createElement('span');
    who.id = 'session-user';
    who.textContent = `${info.user} (${info.role}${info.projects && info.projects.length ? ': ' + info.projects.join(', ') : ''})`;
    element.append(who, ' ');
    link.href = 'api/session/logout';
    link.id = 'logout';
    link.textContent = 'Log out';
  } else {
    link.href = 'api/session/login';
    link.id = 'login';
    link.textContent = 'Log in';
  }
  element.append(link);
}
