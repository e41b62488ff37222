package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.time.Duration;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.runtime.api.Request;

/**
 * An in-memory {@link CollectiveChannel} world for testing the algorithms without the runtime:
 * p ranks in one JVM, MPI matching (posted receives in order, unexpected messages in arrival
 * order), values copied at send time so that buffer misuse shows, and optional bstore forwarding
 * on arrival. Every wait is bounded.
 */
final class MemoryChannels {
    private static final long WAIT_SECONDS = 60;

    private record Envelope(int context, int source, int tag, Object value) {
    }

    private static final class Posted {
        final int context;
        final int source;
        final int tag;
        final CompletableFuture<Message> done = new CompletableFuture<>();

        Posted(int context, int source, int tag) {
            this.context = context;
            this.source = source;
            this.tag = tag;
        }

        boolean matches(Envelope e) {
            return e.context == context && e.source == source && (tag == Communicator.ANY_TAG || tag == e.tag);
        }
    }

    private static final class Mailbox {
        final LinkedList<Envelope> unexpected = new LinkedList<>();
        final LinkedList<Posted> posted = new LinkedList<>();

        synchronized void deliver(Envelope e) {
            for (Iterator<Posted> it = posted.iterator(); it.hasNext(); ) {
                Posted r = it.next();
                if (r.matches(e)) {
                    it.remove();
                    r.done.complete(new Message(e.source, e.tag, e.value));
                    return;
                }
            }
            unexpected.add(e);
        }

        synchronized Posted post(int context, int source, int tag) {
            Posted r = new Posted(context, source, tag);
            for (Iterator<Envelope> it = unexpected.iterator(); it.hasNext(); ) {
                Envelope e = it.next();
                if (r.matches(e)) {
                    it.remove();
                    r.done.complete(new Message(e.source, e.tag, e.value));
                    return r;
                }
            }
            posted.add(r);
            return r;
        }

        synchronized int pending() {
            return unexpected.size() + posted.size();
        }
    }

    private final Mailbox[] boxes;
    private final boolean bstore;
    private int[] hosts;
    private int[] sites;

    /** Places rank r on host {@code r % hostCount} (for the hierarchical algorithms). */
    MemoryChannels withHosts(int hostCount) {
        hosts = new int[boxes.length];
        for (int r = 0; r < hosts.length; r++) {
            hosts[r] = r % hostCount;
        }
        return this;
    }

    /** Places the ranks in {@code siteCount} sites of contiguous blocks of ranks (for the site-aware algorithms). */
    MemoryChannels withSites(int siteCount) {
        sites = new int[boxes.length];
        for (int r = 0; r < sites.length; r++) {
            sites[r] = r * siteCount / sites.length;
        }
        return this;
    }

    MemoryChannels(int size, boolean bstore) {
        this.boxes = new Mailbox[size];
        for (int i = 0; i < size; i++) {
            boxes[i] = new Mailbox();
        }
        this.bstore = bstore;
    }

    int size() {
        return boxes.length;
    }

    /** Messages sent and not received, plus receives posted and not matched (0 after a clean run). */
    int pending() {
        int n = 0;
        for (Mailbox b : boxes) {
            n += b.pending();
        }
        return n;
    }

    CollectiveChannel channel(int rank, int context) {
        return new Channel(rank, context);
    }

    static Object copy(Object v) {
        if (v instanceof int[] a) {
            return a.clone();
        } else if (v instanceof long[] a) {
            return a.clone();
        } else if (v instanceof double[] a) {
            return a.clone();
        } else if (v instanceof byte[] a) {
            return a.clone();
        } else if (v instanceof List<?> l) {
            return new ArrayList<Object>(l);
        }
        return v;
    }

    private static Message await(CompletableFuture<Message> f, Duration timeout) {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new ReceiveTimeoutException("memory channel: nothing arrived within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private final class Channel implements CollectiveChannel {
        private final int me;
        private final int context;

        Channel(int me, int context) {
            this.me = me;
            this.context = context;
        }

        @Override
        public int rank() {
            return me;
        }

        @Override
        public int size() {
            return boxes.length;
        }

        @Override
        public void send(Object value, int dest, int tag) {
            if (tag < 0) {
                throw new IllegalArgumentException("negative tag " + tag);
            }
            boxes[dest].deliver(new Envelope(context, me, tag, copy(value)));
        }

        @Override
        public Request isend(Object value, int dest, int tag) {
            send(value, dest, tag);
            return done(null);
        }

        @Override
        public Message recv(int source, int tag) {
            return await(boxes[me].post(context, source, tag).done, Duration.ofSeconds(WAIT_SECONDS));
        }

        @Override
        public Request irecv(int source, int tag) {
            Posted r = boxes[me].post(context, source, tag);
            return new Request() {
                @Override
                public Message await() {
                    return MemoryChannels.await(r.done, Duration.ofSeconds(WAIT_SECONDS));
                }

                @Override
                public Message await(Duration timeout) {
                    return MemoryChannels.await(r.done, timeout);
                }

                @Override
                public boolean test() {
                    return r.done.isDone();
                }
            };
        }

        @Override
        public boolean supportsBstore() {
            return bstore;
        }

        @Override
        public int[] hosts() {
            return hosts == null ? null : hosts.clone();
        }

        @Override
        public int[] sites() {
            return sites == null ? null : sites.clone();
        }

        @Override
        public Object bstoreBroadcast(Object value, int root, int tag) {
            if (me != root) {
                return recv(root, tag).value();
            }
            forward(value, root, root, tag);
            return value;
        }

        /** Delivers to the children of {@code at}, each of which forwards on arrival (in this thread). */
        private void forward(Object value, int at, int root, int tag) {
            for (int c : BinomialTree.children(at, root, boxes.length)) {
                boxes[c].deliver(new Envelope(context, root, tag, copy(value)));
                forward(value, c, root, tag);
            }
        }
    }

    private static Request done(Message m) {
        return new Request() {
            @Override
            public Message await() {
                return m;
            }

            @Override
            public Message await(Duration timeout) {
                return m;
            }

            @Override
            public boolean test() {
                return true;
            }
        };
    }
}
