package org.mpfl.engine.access;

import java.util.Locale;
import java.util.Optional;

/** What a user may do within their projects; each role includes the ones before it. */
public enum Role {
    /** Reads runs, workflows, logs and traces of their projects. */
    VIEWER,
    /** Also starts, cancels and resumes runs and deploys workflows in their projects. */
    OPERATOR,
    /** Everything, in every project: the registry, host credentials, archives, the audit trail. */
    ADMIN;

    /** Whether this role includes {@code other}. */
    public boolean includes(Role other) {
        return compareTo(other) >= 0;
    }

    /** The role a claim value names ({@code prefix} + role name, any case), if any. */
    static Optional<Role> named(String value, String prefix) {
        if (value == null || !value.regionMatches(true, 0, prefix, 0, prefix.length())) {
            return Optional.empty();
        }
        String name = value.substring(prefix.length()).toUpperCase(Locale.ROOT);
        for (Role r : values()) {
            if (r.name().equals(name)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
