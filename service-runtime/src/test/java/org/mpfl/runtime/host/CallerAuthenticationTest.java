package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.apache.axis2.context.MessageContext;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.HostCredential;

/** Who may make a host act, decided before a request body is read (no sockets: the rule alone). */
class CallerAuthenticationTest {
    private static final HostCredential CREDENTIAL = HostCredential.generate("http://127.0.0.1:1", "h1");
    private static final String ENGINE = HostCredential.engineAuthorization(CREDENTIAL.engineKey());

    @Test
    void withoutAnEngineOnlyThisMachineMayCall() {
        CallerAuthentication callers = new CallerAuthentication(false, () -> false);
        assertTrue(callers.acceptsEngineCall(null, "127.0.0.1"));
        assertTrue(callers.acceptsEngineCall(null, "::1"));
        assertFalse(callers.acceptsEngineCall(null, "192.0.2.7"));
        assertFalse(callers.acceptsEngineCall(null, null));
    }

    @Test
    void whileTheCredentialIsAwaitedNobodyMayCallNotEvenThisMachine() {
        CallerAuthentication callers = new CallerAuthentication(true, () -> false);
        assertFalse(callers.acceptsEngineCall(null, "127.0.0.1"));
        callers.setCredential(CREDENTIAL);
        assertTrue(callers.acceptsEngineCall(ENGINE, "192.0.2.7"));
    }

    @Test
    void withACredentialOnlyTheEnginesKeyCountsWhereverTheCallerIs() {
        CallerAuthentication callers = new CallerAuthentication(false, () -> false);
        callers.setCredential(CREDENTIAL);
        assertTrue(callers.acceptsEngineCall(ENGINE, "192.0.2.7"));
        assertFalse(callers.acceptsEngineCall(null, "127.0.0.1"), "loopback is no longer enough");
        String other = HostCredential.engineAuthorization(HostCredential.generate("http://127.0.0.1:1", "h1").engineKey());
        assertFalse(callers.acceptsEngineCall(other, "127.0.0.1"), "another host's key");
    }

    @Test
    void inAServletContainerTheHeaderComesFromTheTransportHeaders() {
        MessageContext mc = new MessageContext();
        mc.setProperty(MessageContext.TRANSPORT_HEADERS, Map.of("authorization", ENGINE));
        mc.setProperty(MessageContext.REMOTE_ADDR, "192.0.2.7");
        CallerAuthentication container = new CallerAuthentication(false, () -> true);
        container.setCredential(CREDENTIAL);
        assertTrue(container.acceptsEngineCall(mc));
        // the host's own worker puts the header into AUTHORIZATION_PROPERTY; transport headers are not its
        CallerAuthentication own = new CallerAuthentication(false, () -> false);
        own.setCredential(CREDENTIAL);
        assertFalse(own.acceptsEngineCall(mc));
        mc.setProperty(ServiceHost.AUTHORIZATION_PROPERTY, ENGINE);
        assertTrue(own.acceptsEngineCall(mc));
    }
}
