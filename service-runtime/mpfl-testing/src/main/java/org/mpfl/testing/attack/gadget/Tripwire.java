package org.mpfl.testing.attack.gadget;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;

/**
 * A class outside every test program's allow-list (no test program lives in this package; its parent
 * package is allowed in {@code ObjectPayloadTest}, a sub-package not being the package) whose every way
 * of being made leaves a mark in a system property, readable without
 * touching the class: loading it with initialisation, constructing it, calling its setter, and Java
 * deserialisation. The attack tests send it and check that no mark appeared ({@link TripwireMarks}:
 * reading the marks must not initialise this class).
 */
public final class Tripwire implements Serializable {
    private static final long serialVersionUID = 1L;

    /** System properties set by the corresponding side effect. */
    public static final String INITIALISED = "mpfl.test.tripwire.initialised";
    public static final String CONSTRUCTED = "mpfl.test.tripwire.constructed";
    public static final String SET = "mpfl.test.tripwire.set";
    public static final String DESERIALISED = "mpfl.test.tripwire.deserialised";

    static {
        System.setProperty(INITIALISED, "true");
    }

    private String command = "";

    public Tripwire() {
        System.setProperty(CONSTRUCTED, "true");
    }

    public void setCommand(String command) {
        System.setProperty(SET, "true");
        this.command = command;
    }

    public String command() {
        return command;
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        System.setProperty(DESERIALISED, "true");
    }
}
