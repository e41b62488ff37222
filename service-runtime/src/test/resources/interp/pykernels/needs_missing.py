"""PythonKernelFaultsTest: a module whose own import fails (a dependency the interpreter lacks)."""

import mpfl_test_absent_dependency  # line 3: the traceback names this line and no frame of the import machinery


def f(y):
    return {"y": y}
