package org.mpfl.runtime.interp;

import java.net.URI;
import java.net.URISyntaxException;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.RuntimeFault;

/**
 * {@code invoke}: a request-response call of an external SOAP service ({@link SoapInvoker}); a
 * failure of the call (unreachable, timeout, SOAP fault) is a fault of the rank. The rank is busy,
 * not waiting for a peer, during the call, so no WAIT is reported for it.
 */
final class InvokeStep {

    void execute(IrActivity.Invoke x, Frame f) {
        RankState rank = f.rank();
        String name = Executor.name(x);
        String endpointText = String.valueOf(ExpressionEvaluator.evaluate(x.endpoint(), f));
        URI endpoint;
        try {
            endpoint = new URI(endpointText.strip());
        } catch (URISyntaxException e) {
            throw new RuntimeFault(x.endpoint().at(), "endpoint '" + endpointText + "' is not a URL: " + e.getMessage());
        }
        if (!"http".equalsIgnoreCase(endpoint.getScheme()) && !"https".equalsIgnoreCase(endpoint.getScheme())) {
            throw new RuntimeFault(x.endpoint().at(), "endpoint '" + endpointText + "' is not an http or https URL");
        }
        String input = x.input() == null ? "" : String.valueOf(ExpressionEvaluator.evaluate(x.input(), f));
        rank.monitor().reached(name, x.at());
        String answer;
        try {
            answer = SoapInvoker.call(endpoint, x.operation(), input, SoapInvoker.timeout(), rank::checkAborted);
        } catch (SoapInvoker.Failure e) {
            throw new RankFault(name, x.at(), e.getMessage(), e);
        }
        if (x.output() != null) {
            rank.store(x.output(), answer, false, f, "answer");
        }
    }
}
