/** The MPFL compiler: {@link org.mpfl.compiler.MpflCompiler} runs the front-end pipeline (read, structure, types, analyses). */
package org.mpfl.compiler;
