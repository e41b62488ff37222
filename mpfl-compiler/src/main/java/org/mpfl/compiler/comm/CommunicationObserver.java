package org.mpfl.compiler.comm;

/** What the symbolic run of the communication check saw communicate (for {@link WorkflowGraph}). */
interface CommunicationObserver {
    /** Observes nothing. */
    CommunicationObserver NONE = new CommunicationObserver() {
        @Override
        public void message(Request send, Request receive) {
        }

        @Override
        public void collective(CollectiveRendezvous.Slot slot) {
        }
    };

    /** A send matched a receive. */
    void message(Request send, Request receive);

    /** Every member of a collective arrived with the same signature. */
    void collective(CollectiveRendezvous.Slot slot);
}
