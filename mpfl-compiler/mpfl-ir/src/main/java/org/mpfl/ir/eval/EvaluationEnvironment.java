package org.mpfl.ir.eval;

/**
 * What an expression can see at run time besides its own operands. The rank interpreter supplies
 * one backed by the live rank (variables, communicators); the compiler's communication check
 * supplies a symbolic one per simulated rank; {@link ConstantEnvironment} serves params-only
 * expressions (defaults, rank counts). An implementation may throw its own unchecked exception to
 * say "this value is not known here" — the evaluator lets it through untouched.
 */
public interface EvaluationEnvironment {

    /** The current value of a param, process variable or loop variable (see {@link org.mpfl.ir.IrExpr.RefKind}). */
    Object variable(String name);

    /** {@code rank}: this rank's world rank. */
    int worldRank();

    /** {@code size}: the number of ranks of the domain. */
    int worldSize();

    /** {@code prank}: rank within this rank's process. */
    int processRank();

    /** {@code psize}: number of ranks of this rank's process. */
    int processSize();

    /** {@code first('P')}: the first world rank of process P. */
    int firstRank(String process);

    /** {@code count('P')}: the number of ranks of process P. */
    int rankCount(String process);

    /** {@code rank(c)}: this rank's rank in communicator c (−1 if not a member). */
    int commRank(String comm);

    /** {@code size(c)}. */
    int commSize(String comm);

    /** {@code coords(c)}: Cartesian coordinates of this rank in topology c. */
    int[] coords(String comm);

    /** {@code neighbor(c, dim, disp)}: rank in c at displacement disp along dim, −1 off a non-periodic edge. */
    int neighbor(String comm, int dim, int displacement);
}
