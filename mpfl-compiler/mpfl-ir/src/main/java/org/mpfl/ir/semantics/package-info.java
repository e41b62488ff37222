/**
 * The semantics of activities that both executors of the IR need — the compiler's static
 * communication check (which steps a rank over partly unknown values) and the runtime's rank
 * interpreter (which runs it for real). Each class here is the one description of one such rule:
 * how a {@code for} loop iterates, how a target is stored, which ranks a collective writes and
 * what, how {@code split}/{@code cartesian} read their operands and lay out a grid, and how peers,
 * tags and their wildcards are checked. The two executors differ in their values (symbolic or
 * concrete) and in how they report what they cannot follow; they plug that in through
 * {@link org.mpfl.ir.semantics.Operands} or by passing already evaluated operands.
 */
package org.mpfl.ir.semantics;
