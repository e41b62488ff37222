package org.mpfl.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RepeatedProblemTest {
    @Test
    void aProblemIsSaidOnceAgainWhenItChangesAndAgainAfterItWasOver() {
        RepeatedProblem p = new RepeatedProblem();
        assertFalse(p.over(), "no problem yet");
        assertTrue(p.isNews("engine down"));
        assertFalse(p.isNews("engine down"), "the same problem on the next attempt");
        assertTrue(p.isNews("credential refused"), "another problem");
        assertTrue(p.over(), "there was a problem");
        assertFalse(p.over(), "said once");
        assertTrue(p.isNews("credential refused"), "the same problem after it was over is news again");
    }
}
