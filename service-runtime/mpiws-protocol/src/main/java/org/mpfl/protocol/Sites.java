package org.mpfl.protocol;

import java.util.regex.Pattern;

/**
 * Site names: a site is a group of hosts that reach each other directly and cheaply (one cluster, one
 * private network behind one gateway). A host says which site it is in ({@code mpflc host --site NAME},
 * {@code mpfl.site} of the web application, {@code site=} of a host-file line); hosts that say nothing
 * are all in {@link #DEFAULT}, one site for all. The engine packs a run's ranks within one site while
 * capacity allows, and the runtime's hierarchical collectives cross between sites once per site.
 */
public final class Sites {
    /** The site of a host that names none. */
    public static final String DEFAULT = "default";
    /** Letters, digits, '.', '_' and '-', 1 to 64 of them, starting with a letter or a digit. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private Sites() {
    }

    /**
     * The site a host named: {@link #DEFAULT} for {@code null} or blank, the name itself when it is valid.
     *
     * @throws IllegalArgumentException for a malformed name, saying what a site name may hold
     */
    public static String of(String name) {
        if (name == null || name.isBlank()) {
            return DEFAULT;
        }
        String n = name.strip();
        if (!NAME.matcher(n).matches()) {
            throw new IllegalArgumentException("bad site name '" + (n.length() > 80 ? n.substring(0, 80) + "…" : n)
                    + "': 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or a digit");
        }
        return n;
    }
}
