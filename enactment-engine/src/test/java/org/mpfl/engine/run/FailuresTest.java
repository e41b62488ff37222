package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.ConnectException;
import java.util.concurrent.RejectedExecutionException;
import org.apache.camel.CamelExecutionException;
import org.junit.jupiter.api.Test;

/** How a failure is worded in logs and run records: the message that says what happened, not a wrapper's. */
class FailuresTest {
    @Test
    void camelsExchangeWrapperGivesWayToItsCause() {
        Throwable wrapped = new CamelExecutionException("Exception occurred during execution on the exchange: Exchange[A-1]", null,
                new RejectedExecutionException("no thread for a call"));
        assertEquals("no thread for a call", Failures.describe(wrapped));
    }

    @Test
    void theFirstMessageInTheChainOrTheRootsClassName() {
        assertEquals("refused", Failures.describe(new RuntimeException(null, new ConnectException("refused"))));
        assertEquals("outer", Failures.describe(new IllegalStateException("outer", new ConnectException("refused"))));
        assertEquals("ConnectException", Failures.describe(new RuntimeException(null, new ConnectException())));
    }
}
