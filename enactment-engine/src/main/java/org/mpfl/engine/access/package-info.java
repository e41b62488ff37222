/**
 * Who may see and do what on the engine (issue 22): callers (users from one trusted OpenID Connect
 * issuer, the admin token, hosts, anonymous readers), their roles and projects, the route × role
 * policy applied in front of every REST route, and the audit trail of mutations.
 */
package org.mpfl.engine.access;
