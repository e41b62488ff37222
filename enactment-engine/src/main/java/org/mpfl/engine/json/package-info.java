/**
 * The engine's JSON configuration ({@link org.mpfl.engine.json.Json}), shared by every layer; it
 * depends on no other engine package.
 */
package org.mpfl.engine.json;
