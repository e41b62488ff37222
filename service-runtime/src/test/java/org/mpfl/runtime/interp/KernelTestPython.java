package org.mpfl.runtime.interp;

import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.mpfl.protocol.settings.ProtocolSettings;

/**
 * The interpreter kernel tests use: one with NumPy (Debian's, installed by .ci/run), not whatever
 * python3 the PATH finds; set as this JVM's kernel interpreter for a test class and restored after it.
 */
final class KernelTestPython {
    static final String PATH = System.getProperty("mpfl.test.python", "/usr/bin/python3");

    private KernelTestPython() {
    }

    /** Makes {@link #PATH} (or {@code python}) the kernel interpreter; returns the previous setting for {@link #restore}. */
    static String use(String python) {
        return System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), python);
    }

    static void restore(String previous) {
        if (previous == null) {
            System.clearProperty(ProtocolSettings.KERNEL_PYTHON.name());
        } else {
            System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), previous);
        }
    }

    /**
     * {@code @ExtendWith(KernelTestPython.ForClass.class)}: {@link #use} {@link #PATH} before the class's tests,
     * {@link #restore} after them.
     */
    static final class ForClass implements BeforeAllCallback, AfterAllCallback {
        private static final ExtensionContext.Namespace HERE = ExtensionContext.Namespace.create(ForClass.class);

        @Override
        public void beforeAll(ExtensionContext context) {
            context.getStore(HERE).put("previous", Optional.ofNullable(use(PATH)));
        }

        @Override
        public void afterAll(ExtensionContext context) {
            restore(((Optional<?>) context.getStore(HERE).remove("previous")).map(String.class::cast).orElse(null));
        }
    }
}
