package org.mpfl.engine.run;

import java.util.Map;
import org.mpfl.protocol.FaultKind;

/**
 * A rank instance's answer to the MPIWS {@code status} operation.
 *
 * @param state         PENDING, RUNNING, DONE, FAILED, ABORTED, or UNKNOWN (the host has no such instance)
 * @param progressValue progress so far, or {@code null}
 * @param progressTotal progress total, or {@code null}
 * @param message       failure cause when FAILED
 * @param counters      {@code {"sentTo":{rank:n},"bytesTo":{rank:b}}} or {@code null}
 * @param outputs       output values recorded so far, or {@code null}
 * @param fault         whose fault the failure is when FAILED, as the host said ({@code null}: not said)
 */
public record RankStatus(String state, Double progressValue, Double progressTotal, String message,
                         Map<String, Object> counters, Map<String, Object> outputs, FaultKind fault) {
}
