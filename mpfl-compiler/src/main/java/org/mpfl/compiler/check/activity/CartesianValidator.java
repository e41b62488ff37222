package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import java.util.List;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/**
 * {@code <cartesian name comm dims periodic>}: dims are int expressions, or one int[] whose length
 * is known only at run time; periodic gives one flag per dimension or one for all.
 */
final class CartesianValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        String name = context.declaredCommunicator(e);
        String comm = context.attrs().communicator(e, "comm");
        List<IrExpr> dims = context.attrs().expressionList(e, "dims", scope);
        boolean ok = allPresent(name, comm, dims);
        int dimensions = -1;
        if (dims != null) {
            if (dims.size() == 1 && dims.get(0).type() == MpflType.INT_ARRAY) {
                dimensions = -1; // known at run time only
            } else {
                dimensions = dims.size();
                for (int i = 0; i < dims.size(); i++) {
                    IrExpr converted = context.attrs().expect(dims.get(i), MpflType.INT, "each entry of 'dims' of <cartesian>");
                    ok &= converted != null;
                    dims.set(i, converted);
                }
            }
        }
        List<IrExpr> periodic = List.of(new IrExpr.Const(MpflType.BOOLEAN, false, e.location()));
        if (e.attribute("periodic") != null) {
            periodic = context.attrs().expressionList(e, "periodic", scope);
            if (periodic == null) {
                ok = false;
            } else {
                for (int i = 0; i < periodic.size(); i++) {
                    IrExpr converted = context.attrs().expect(periodic.get(i), MpflType.BOOLEAN, "each entry of 'periodic' of <cartesian>");
                    ok &= converted != null;
                    periodic.set(i, converted);
                }
                if (ok && dimensions > 0 && periodic.size() != 1 && periodic.size() != dimensions) {
                    context.error(e.attribute("periodic").location(), "'periodic' has " + periodic.size() + " entries for "
                            + dimensions + " dimensions (give one per dimension, or one for all)");
                    ok = false;
                }
            }
        }
        return ok ? new IrActivity.Cartesian(name, comm, dims, periodic, e.location()) : null;
    }
}
