package org.mpfl.protocol;

import java.util.Map;

/**
 * What the MPIWS {@code status} operation answers about one rank instance.
 *
 * @param state         {@code pending}, {@code running}, {@code done}, {@code failed} (or {@code unknown}
 *                      when the host has no such instance)
 * @param progressValue last reported progress value ({@code NaN} if none)
 * @param progressTotal last reported progress total ({@code NaN} if none)
 * @param countersJson  message counters as JSON ({@code {"sentTo":{..},"bytesTo":{..}}}) or {@code null}
 * @param outputsJson   output name → value as JSON text, in the order recorded; only for a request with
 *                      the proof of the domain token ({@link DomainToken#proveStatus})
 * @param failure       failure message for {@code failed}, else {@code null}; only with the proof, as the outputs
 * @param fault         for {@code failed}: whose fault it is, as {@link RankEvent#fault()}; like the failure message
 *                      only with the proof, else {@code null} (a failure without it counts as {@link FaultKind#WORKFLOW})
 */
public record RankStatus(String state, double progressValue, double progressTotal, String countersJson,
                         Map<String, String> outputsJson, String failure, FaultKind fault) {

    /**
     * What anyone who knows the domain ID may read: state, progress and counters, without the outputs and
     * the failure message (which may carry data of the run) and its kind.
     */
    public RankStatus withoutOutputs() {
        return new RankStatus(state, progressValue, progressTotal, countersJson, Map.of(), null, null);
    }

    public boolean isFinal() {
        return state.equals("done") || state.equals("failed") || state.equals("unknown");
    }
}
