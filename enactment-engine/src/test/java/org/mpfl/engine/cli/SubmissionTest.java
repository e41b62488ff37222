package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What {@code mpflc run} says when stopped before it follows its run ({@link Submission}; here its exit hook's step is
 * called directly, as the JVM's exit calls it): that no run was started (and then none is submitted), that the run was
 * being submitted, or which run a detached command started. That a stop while the local hosts start says so at the
 * JVM's real exit is {@code StoppedLocalRunTest}'s.
 */
class SubmissionTest {
    private final ByteArrayOutputStream said = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(said, true, StandardCharsets.UTF_8);
    private final EngineClient engine = new EngineClient("http://127.0.0.1:9/", "t");

    private String said() {
        return said.toString(StandardCharsets.UTF_8);
    }

    @Test
    void stoppedBeforeTheSubmitSaysNoRunWasStartedAndRefusesTheSubmit() {
        Submission s = Submission.watch(err, false, true);
        try {
            s.stopped();
            assertEquals("mpflc run: stopped before the run was submitted: no run was started\n", said());
            assertThrows(IOException.class, () -> s.sending(engine), "a run submitted after 'no run was started'");
            assertTrue(s.said().isDone(), "the exit's other hooks wait no more");
        } finally {
            s.close();
        }
    }

    @Test
    void stoppedWhileSubmittingSaysTheEngineMayHaveTheRun() throws Exception {
        Submission s = Submission.watch(err, false, true);
        try {
            s.sending(engine);
            s.stopped();
            assertEquals("mpflc run: stopped while submitting the run: the engine may have started it (mpflc runs --engine"
                    + " http://127.0.0.1:9 lists the runs)\n", said());
        } finally {
            s.close();
        }
    }

    @Test
    void aDetachedRunStartedGoesOnAndIsNamed() throws Exception {
        Submission s = Submission.watch(err, false, false);
        try {
            s.sending(engine);
            s.submitted("r1");
            s.stopped();
            assertEquals("mpflc run: stopped; run r1 was started and goes on: mpflc status r1 --follow --engine http://127.0.0.1:9\n",
                    said());
        } finally {
            s.close();
        }
    }
}
