package org.mpfl.ir.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.diag.SourceLocation;

/**
 * A workflow param in the plan: its type, its default value (null if it has none), whether a
 * value must be supplied at run time, and where the document declares it ({@code <param>}), so that a run
 * refused for want of its value says where; null in plans written before the plan carried it.
 */
public record PlanParam(String name, MpflType type, @JsonProperty("default") Object defaultValue, boolean required,
        SourceLocation at) {
    public PlanParam {
        // JSON numbers come back as the smallest fitting Java type: normalise to the declared one
        if (defaultValue instanceof Number n && type != null) {
            defaultValue = switch (type) {
                case INT -> n.intValue();
                case LONG -> n.longValue();
                case DOUBLE -> n.doubleValue();
                default -> defaultValue;
            };
        }
    }

    /** A param whose declaration's place is not known (a hand-written plan). */
    public PlanParam(String name, MpflType type, Object defaultValue, boolean required) {
        this(name, type, defaultValue, required, null);
    }
}
