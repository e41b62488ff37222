/** Generated web services: one Axis2 archive per process, and the output of {@code mpflc compile}. */
package org.mpfl.compiler.gen;
