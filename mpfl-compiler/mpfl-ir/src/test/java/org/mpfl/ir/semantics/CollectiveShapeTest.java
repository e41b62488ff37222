package org.mpfl.ir.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.mpfl.ir.semantics.Exprs.num;
import static org.mpfl.ir.semantics.Exprs.target;

import org.junit.jupiter.api.Test;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrActivity.ReduceOp;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;

class CollectiveShapeTest {
    private final IrExpr root = num(0, 1);
    private final IrExpr data = num(7, 2);
    private final IrTarget into = target("into");
    private final IrTarget v = target("v");

    @Test
    void broadcastOverwritesItsVariableOffTheRootOnlyAndEvaluatesNoData() {
        var a = new IrActivity.Broadcast(root, v, "world", null, Exprs.at(3));
        assertEquals(root, CollectiveShape.root(a));
        assertNull(CollectiveShape.data(a, true));
        assertNull(CollectiveShape.result(a, true));
        assertEquals(v, CollectiveShape.result(a, false));
    }

    @Test
    void scatterDataIsTheRootsAloneAndEveryMemberGetsABlock() {
        var a = new IrActivity.Scatter(root, data, into, "world", null, Exprs.at(3));
        assertEquals(data, CollectiveShape.data(a, true));
        assertNull(CollectiveShape.data(a, false));
        assertEquals(into, CollectiveShape.result(a, true));
        assertEquals(into, CollectiveShape.result(a, false));
    }

    @Test
    void gatherAndReduceStoreOnTheRootOnly() {
        var g = new IrActivity.Gather(root, data, into, "world", null, Exprs.at(3));
        var r = new IrActivity.Reduce(root, data, ReduceOp.SUM, into, "world", null, Exprs.at(3));
        for (IrActivity a : new IrActivity[] {g, r}) {
            assertEquals(root, CollectiveShape.root(a));
            assertEquals(data, CollectiveShape.data(a, false));
            assertEquals(into, CollectiveShape.result(a, true));
            assertNull(CollectiveShape.result(a, false));
        }
        assertEquals(ReduceOp.SUM, CollectiveShape.op(r));
        assertNull(CollectiveShape.op(g));
    }

    @Test
    void unrootedCollectivesStoreOnEveryMember() {
        IrActivity[] all = {
            new IrActivity.Allgather(data, into, "world", null, Exprs.at(3)),
            new IrActivity.Alltoall(data, into, "world", null, Exprs.at(3)),
            new IrActivity.Allreduce(data, ReduceOp.MAX, into, "world", null, Exprs.at(3)),
            new IrActivity.Scan(data, ReduceOp.PROD, into, "world", null, Exprs.at(3)),
        };
        for (IrActivity a : all) {
            assertNull(CollectiveShape.root(a));
            assertEquals(data, CollectiveShape.data(a, false));
            // "at the root" means nothing without a root: the result goes everywhere
            assertEquals(into, CollectiveShape.result(a, false));
            assertEquals(into, CollectiveShape.result(a, true));
        }
        assertEquals(ReduceOp.PROD, CollectiveShape.op(all[3]));
    }

    @Test
    void barrierReadsAndWritesNothing() {
        var a = new IrActivity.Barrier("world", null, Exprs.at(3));
        assertNull(CollectiveShape.root(a));
        assertNull(CollectiveShape.data(a, true));
        assertNull(CollectiveShape.result(a, true));
        assertNull(CollectiveShape.op(a));
    }

    @Test
    void resultNamesSayWhatArrived() {
        assertEquals("broadcast value", CollectiveShape.resultName(new IrActivity.Broadcast(root, v, "world", null, null)));
        assertEquals("scan value", CollectiveShape.resultName(new IrActivity.Scan(data, ReduceOp.SUM, into, "world", null, null)));
    }
}
