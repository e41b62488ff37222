package org.mpfl.bench.mediator;

import java.util.Map;

/**
 * An iterative workflow as a mediator enacts it: rounds of one service call per rank, the engine
 * holding all data between rounds. {@link Mediator} calls, for each round, {@link #inputs} for every
 * rank, invokes {@link #activity} on every rank in parallel, hands each answer to {@link #accept},
 * and then {@link #endRound} — where the workflow relays the outputs into the next round's inputs.
 */
public interface MediatedWorkflow {
    /** Number of ranks (services called per round). */
    int size();

    /** Number of rounds. */
    int rounds();

    /** The activity class the ranks run in a round. */
    String activity(int round);

    /** What a rank is sent in a round. */
    Map<String, Object> inputs(int round, int rank);

    /** A rank's answer in a round (called from several threads at once, one call per rank). */
    void accept(int round, int rank, Map<String, Object> outputs);

    /** After every rank of the round answered: the relay into the next round. */
    default void endRound(int round) {
    }
}
