package org.mpfl.runtime.collective;

import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.ReduceOp;

/** What the collective test suite calls on one rank: the engine directly, or a runtime communicator. */
interface Coll {
    int rank();

    int size();

    void barrier(String algorithm);

    Object bcast(Object value, int root, String algorithm);

    Object scatter(Object array, int root, String algorithm);

    Object gather(Object value, int root, String algorithm);

    Object allgather(Object value, String algorithm);

    Object reduce(Object value, ReduceOp op, int root, String algorithm);

    Object allreduce(Object value, ReduceOp op, String algorithm);

    Object alltoall(Object array, String algorithm);

    Object scan(Object value, ReduceOp op, String algorithm);

    static Coll of(Collectives c, CollectiveChannel ch) {
        return new Coll() {
            public int rank() {
                return ch.rank();
            }

            public int size() {
                return ch.size();
            }

            public void barrier(String a) {
                c.barrier(a);
            }

            public Object bcast(Object v, int root, String a) {
                return c.bcast(v, root, a);
            }

            public Object scatter(Object v, int root, String a) {
                return c.scatter(v, root, a);
            }

            public Object gather(Object v, int root, String a) {
                return c.gather(v, root, a);
            }

            public Object allgather(Object v, String a) {
                return c.allgather(v, a);
            }

            public Object reduce(Object v, ReduceOp op, int root, String a) {
                return c.reduce(v, op, root, a);
            }

            public Object allreduce(Object v, ReduceOp op, String a) {
                return c.allreduce(v, op, a);
            }

            public Object alltoall(Object v, String a) {
                return c.alltoall(v, a);
            }

            public Object scan(Object v, ReduceOp op, String a) {
                return c.scan(v, op, a);
            }
        };
    }

    /** Over a communicator; a named barrier algorithm is ignored (the API's barrier takes none). */
    static Coll of(Communicator c) {
        return new Coll() {
            public int rank() {
                return c.rank();
            }

            public int size() {
                return c.size();
            }

            public void barrier(String a) {
                c.barrier();
            }

            public Object bcast(Object v, int root, String a) {
                return c.bcast(v, root, a);
            }

            public Object scatter(Object v, int root, String a) {
                return c.scatter(v, root, a);
            }

            public Object gather(Object v, int root, String a) {
                return c.gather(v, root, a);
            }

            public Object allgather(Object v, String a) {
                return c.allgather(v, a);
            }

            public Object reduce(Object v, ReduceOp op, int root, String a) {
                return c.reduce(v, op, root, a);
            }

            public Object allreduce(Object v, ReduceOp op, String a) {
                return c.allreduce(v, op, a);
            }

            public Object alltoall(Object v, String a) {
                return c.alltoall(v, a);
            }

            public Object scan(Object v, ReduceOp op, String a) {
                return c.scan(v, op, a);
            }
        };
    }
}
