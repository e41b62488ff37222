package org.mpfl.compiler.comm;

/**
 * A value the check does not know before the run: an output of {@code compute}, a received value, an
 * {@code invoke} result, or anything derived from one. It remembers the variable and the place it
 * came from, so that a warning can say why something was not decided ("the condition uses 'res',
 * received at f:20:7"). Values derived from an unknown keep the original cause.
 *
 * @param variable the variable that first held the unknown value
 * @param origin   how it got it, e.g. {@code "an output of <compute> at f:12:7"}
 */
public record Unknown(String variable, String origin) {

    /** How a read of {@code name} holding this value is explained. */
    public String explainRead(String name) {
        return name.equals(variable) ? "'" + name + "', " + origin
                : "'" + name + "', which depends on '" + variable + "', " + origin;
    }
}
