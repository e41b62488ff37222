package org.mpfl.ir.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.mpfl.ir.MpflType;

/**
 * A workflow param in the plan: its type, its default value (null if it has none) and whether a
 * value must be supplied at run time.
 */
public record PlanParam(String name, MpflType type, @JsonProperty("default") Object defaultValue, boolean required) {
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
}
