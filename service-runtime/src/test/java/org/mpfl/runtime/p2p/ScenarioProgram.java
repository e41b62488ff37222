package org.mpfl.runtime.p2p;

import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/**
 * The messaging-suite scenarios as one service type of a service host: the parameter
 * {@code scenario} names the {@link P2PScenarios} program to run.
 */
public final class ScenarioProgram implements RankProgram {
    /** Service type name under which the fixture publishes this program. */
    public static final String SERVICE = "mpfl.test.Scenario";

    @Override
    public void run(RankContext context) throws Exception {
        Object name = context.params().get("scenario");
        if (name == null) {
            throw new IllegalArgumentException("parameter 'scenario' missing");
        }
        P2PScenarios.named(name.toString()).run(context);
    }
}
