package org.mpfl.testing.attack.gadget;

/** Reads {@link Tripwire}'s marks without touching (so without initialising) {@link Tripwire}. */
public final class TripwireMarks {
    private TripwireMarks() {
    }

    /** Which side effects happened in this JVM, e.g. {@code initialised=false constructed=false …}. */
    public static String marks() {
        StringBuilder s = new StringBuilder();
        // compile-time constants: inlined, so naming them does not initialise Tripwire
        String[][] marks = {{"initialised", Tripwire.INITIALISED}, {"constructed", Tripwire.CONSTRUCTED},
            {"set", Tripwire.SET}, {"deserialised", Tripwire.DESERIALISED}};
        for (String[] m : marks) {
            s.append(s.length() == 0 ? "" : " ").append(m[0]).append('=').append(Boolean.parseBoolean(System.getProperty(m[1])));
        }
        return s.toString();
    }

    /** What {@link #marks()} says when nothing happened. */
    public static final String NONE = "initialised=false constructed=false set=false deserialised=false";
}
