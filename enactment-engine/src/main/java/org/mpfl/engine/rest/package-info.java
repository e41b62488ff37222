/**
 * The engine's HTTP face: the REST API (Camel REST DSL on platform-http/Vert.x), the server-sent
 * event stream and the static console, all on one port. See {@code docs/openapi.yaml}.
 */
package org.mpfl.engine.rest;
