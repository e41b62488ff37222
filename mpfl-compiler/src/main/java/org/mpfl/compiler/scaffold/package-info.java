/**
 * {@code mpflc new java|python DIR}: a ready project for a user's own kernel — one kernel, one MPFL document
 * that calls it, a test of the kernel and a README whose two commands build and run it. The files are
 * templates under {@code src/main/resources/org/mpfl/compiler/scaffold}; this package uses nothing of the
 * compiler proper (a project is text, not a checked document). A Python project's module name is checked against
 * the names the kernel worker takes itself, asked of the worker ({@code org.mpfl.protocol.kernel.PythonWorker}).
 */
package org.mpfl.compiler.scaffold;
