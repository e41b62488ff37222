/** Workflows as the engine sees them: documents, plans, and the bridge to the compiler. */
package org.mpfl.engine.workflow;
