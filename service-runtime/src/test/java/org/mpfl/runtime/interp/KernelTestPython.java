package org.mpfl.runtime.interp;

/** The interpreter kernel tests use: one with NumPy (Debian's, installed by .ci/run), not whatever python3 the PATH finds. */
final class KernelTestPython {
    static final String PATH = System.getProperty("mpfl.test.python", "/usr/bin/python3");

    private KernelTestPython() {
    }
}
