package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.MpflType;

/** {@code <gather>} and {@code <allgather>}: the result type follows from the data ({@link #gatherResult}); only gather has a root. */
final class GatherValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        CollectiveOperands o = CollectiveOperands.read(context, e, scope, e.name().equals("gather"));
        boolean ok = o.complete();
        if (o.data() != null && o.into() != null) {
            MpflType result = gatherResult(o.data().type());
            if (o.into().type() != result && o.into().type() != MpflType.OBJECT) {
                context.error(o.into().at(), "'into' of <" + e.name() + "> must be " + result + " (gathering " + o.data().type()
                        + "), found " + o.into().type());
                ok = false;
            }
        }
        if (!ok) {
            return null;
        }
        return o.rooted() ? new IrActivity.Gather(o.root(), o.data(), o.into(), o.comm(), o.algorithm(), e.location())
                : new IrActivity.Allgather(o.data(), o.into(), o.comm(), o.algorithm(), e.location());
    }

    /** What gather/allgather produce from {@code data}: T → T[], T[] → T[] (concatenation), anything else → object. */
    static MpflType gatherResult(MpflType data) {
        if (data.isNumeric()) {
            return data.arrayType();
        }
        if (data.isNumericArray()) {
            return data;
        }
        return MpflType.OBJECT;
    }
}
