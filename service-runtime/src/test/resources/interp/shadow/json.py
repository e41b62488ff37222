"""PythonKernelFaultsTest: a kernel module named as one the worker itself imports first (Python's json)."""


def double(y):
    return {"y": 2 * y}
