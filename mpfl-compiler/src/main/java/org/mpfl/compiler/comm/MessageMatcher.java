package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * MPI matching of point-to-point operations: per destination rank, the receives posted and not yet
 * matched (in posting order) and the messages arrived and not yet received (in sending order). A
 * message matches the earliest posted receive with the same communicator, a fitting source and tag;
 * a receive matches the earliest arrived message that fits. Both orders together give MPI's
 * non-overtaking rule. Every match goes to {@link MessageTyping}, which checks the types across it.
 */
final class MessageMatcher {
    private final List<List<Request>> posted = new ArrayList<>();
    private final List<List<Request>> arrived = new ArrayList<>();
    /** The first receive from any rank that matched a message, or null: from there on, the check follows one of several possible orders. */
    private Request firstWildcardMatch;
    /** Told about every match (the workflow graph); the check itself needs none. */
    CommunicationObserver observer = CommunicationObserver.NONE;
    private final MessageTyping typing;

    MessageMatcher(int worldSize, MessageTyping typing) {
        this.typing = typing;
        for (int i = 0; i < worldSize; i++) {
            posted.add(new ArrayList<>());
            arrived.add(new ArrayList<>());
        }
    }

    /** A message leaves its sender; a standard one is complete at once (buffered). */
    void send(Request message) {
        if (!message.synchronous) {
            message.complete = true;
        }
        int destination = message.comm.world(message.peer);
        for (Iterator<Request> it = posted.get(destination).iterator(); it.hasNext();) {
            Request receive = it.next();
            if (fits(receive, message)) {
                it.remove();
                match(receive, message);
                return;
            }
        }
        arrived.get(destination).add(message);
    }

    /** A receive is posted by its owner. */
    void receive(Request receive) {
        for (Iterator<Request> it = arrived.get(receive.owner.worldRank()).iterator(); it.hasNext();) {
            Request message = it.next();
            if (fits(receive, message)) {
                it.remove();
                match(receive, message);
                return;
            }
        }
        posted.get(receive.owner.worldRank()).add(receive);
    }

    private static boolean fits(Request receive, Request message) {
        return receive.comm.id() == message.comm.id()
                && (receive.peer == Communicator.ANY_SOURCE || receive.comm.world(receive.peer) == message.owner.worldRank())
                && (receive.tag == Communicator.ANY_TAG || receive.tag == message.tag);
    }

    private void match(Request receive, Request message) {
        if (receive.peer == Communicator.ANY_SOURCE && firstWildcardMatch == null) {
            firstWildcardMatch = receive;
        }
        typing.matched(message, receive, firstWildcardMatch == null);
        receive.matched = true;
        receive.complete = true;
        message.matched = true;
        message.complete = true;
        observer.message(message, receive);
    }

    Request firstWildcardMatch() {
        return firstWildcardMatch;
    }

    /** Messages sent and never received, in world-rank order of their destination. */
    List<Request> unreceivedMessages() {
        List<Request> all = new ArrayList<>();
        arrived.forEach(all::addAll);
        return all;
    }

    /** Receives posted and never matched. */
    List<Request> unmatchedReceives() {
        List<Request> all = new ArrayList<>();
        posted.forEach(all::addAll);
        return all;
    }
}
