/**
 * The compiler as a service for the engine: {@link org.mpfl.ir.spi.WorkflowCompiler} turns a
 * document into a plan and service archives, draws its picture and renders pictures as SVG. The
 * compiler proper (mpfl-compiler) provides it through {@link java.util.ServiceLoader}
 * ({@link org.mpfl.ir.spi.WorkflowCompilerProvider}), so the engine compiles against this
 * module only and finds the compiler on its run-time class path.
 */
package org.mpfl.ir.spi;
