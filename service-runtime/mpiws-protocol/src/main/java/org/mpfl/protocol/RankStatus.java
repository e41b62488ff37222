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
 * @param outputsJson   output name → value as JSON text, in the order recorded
 * @param failure       failure message for {@code failed}, else {@code null}
 */
public record RankStatus(String state, double progressValue, double progressTotal, String countersJson,
                         Map<String, String> outputsJson, String failure) {

    public boolean isFinal() {
        return state.equals("done") || state.equals("failed") || state.equals("unknown");
    }
}
