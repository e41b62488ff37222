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
 */
public record RankStatus(String state, double progressValue, double progressTotal, String countersJson,
                         Map<String, String> outputsJson, String failure) {

    /**
     * What anyone who knows the domain ID may read: state, progress and counters, without the outputs and
     * the failure message (which may carry data of the run).
     */
    public RankStatus withoutOutputs() {
        return new RankStatus(state, progressValue, progressTotal, countersJson, Map.of(), null);
    }

    public boolean isFinal() {
        return state.equals("done") || state.equals("failed") || state.equals("unknown");
    }
}
