/**
 * The engine's HTTP face: the REST API (Camel REST DSL on platform-http/Vert.x), the server-sent
 * event stream and the static console, all on one port. See {@code docs/openapi.yaml}. Only HTTP is
 * handled here; the use cases live in {@code workflow}, {@code run}, {@code deploy} and {@code registry}.
 */
package org.mpfl.engine.rest;
