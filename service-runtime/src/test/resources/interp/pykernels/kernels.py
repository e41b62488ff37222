"""Kernels of PythonKernelTest: each shows one thing the protocol must carry."""
import os
import sys

calls = 0  # module state: persists between calls of one rank


def scale(a, factor, label, flag, blob, meta, n):
    """Every input type; doubles a in place, returns every output type."""
    global calls
    calls += 1
    for i in range(len(a)):
        a[i] = a[i] * factor
    print("scale call", calls, "on", label)
    return {"total": float(sum(a)), "count": n + 1, "tag": label.upper() + "!", "ok": not flag,
            "data": blob[::-1], "info": {"calls": calls, "meta": meta}, "calls": calls}


def fresh(n):
    """Output arrays that are new (not views of an input)."""
    import array
    try:
        import numpy
        return {"ints": numpy.arange(n, dtype=numpy.int32), "longs": numpy.arange(n, dtype=numpy.int64) * (1 << 40),
                "doubles": numpy.linspace(0.0, 1.0, n), "backend": "numpy"}
    except ImportError:
        return {"ints": array.array("i", range(n)), "longs": array.array("q", [i << 40 for i in range(n)]),
                "doubles": array.array("d", [i / (n - 1) for i in range(n)]), "backend": "array"}


def divide(x):
    return {"y": helper(x)}


def helper(x):
    return 1.0 / x  # raises ZeroDivisionError for 0


def wrong_type(x):
    return {"y": "not a number"}


def wrong_shape(x):
    import numpy
    return {"v": numpy.zeros((3, 4))}


def missing(x):
    return {"z": 1.0}


def leave(x):
    sys.exit(3)


def leave_as_if_killed(x):
    """Exits with the status a death by SIGKILL shows (128 + 9): still the kernel's own doing."""
    sys.exit(137)


def crash(x):
    """Dies of a segmentation fault, as a broken C extension would, after a last word on stderr."""
    import signal
    print("about to crash", file=sys.stderr, flush=True)
    os.kill(os.getpid(), signal.SIGSEGV)


def die(x, pidfile):
    """Tells the test its pid, then waits to be killed."""
    with open(pidfile + ".part", "w") as f:
        f.write(str(os.getpid()))
    os.rename(pidfile + ".part", pidfile)
    import time
    time.sleep(600)
    return {"y": x}


def chatty(x):
    line = "x" * 99
    for _ in range(100_000):  # 10 MB
        print(line)
    return {"y": x + 1.0}


def a_list(x):
    """A list where an array is expected: the natural first try, refused with the array type to return instead."""
    return {"v": [x, x]}


def too_large(x):
    """An int no double (nor long) can hold where a double (a long) is expected."""
    return {"y": 10 ** 400, "n": 10 ** 400}


def interrupt(x):
    """A BaseException that is no Exception (KeyboardInterrupt, GeneratorExit, a library's own): still the kernel's."""
    raise KeyboardInterrupt("stopped by the kernel itself")


def mixed_keys(x):
    """Keys that cannot be sorted together, without the output's."""
    return {1: "one", "z": 1.0}


if os.environ.get("MPFL_TEST_NEVER_SET"):
    def ghost(x):
        """Defined only under a condition: mpflc check cannot tell that it is missing, the rank's start can."""
        return {"y": x}


def seed():
    """bytes and object values with content, made on the Python side (the rank has no literal for either)."""
    return {"blob": bytes([0, 1, 254, 255]), "meta": {"list": [1, 2.5, "s", None, True], "nested": {"k": "v"}}}


def roundtrip(i, ia, la, blob, meta, x):
    """The types scale does not take (int, int[], long[], bytes and object with content) there and back, the
    Python types they arrive as, a line on stderr, a slice of an input updated in place as a new output, and a key
    that is no output (a value no type could carry: ignored, never converted)."""
    x[1] = 7.5
    print("roundtrip saw", type(blob).__name__, file=sys.stderr)
    return {"i2": i * 2, "ia2": ia[::-1], "la2": la[::-1], "blob2": blob[::-1] + b"!",
            "meta2": {"got": meta, "types": [type(i).__name__, type(blob).__name__, type(meta).__name__]},
            "part": x[1:3], "scratch": object()}


def switches():
    """How often this worker has slept (its voluntary context switches): one wait per call is the protocol's cost."""
    return {"worker": voluntary_switches("/proc/self/status")}


def busy(x):
    """Computes for 0.3 ms without sleeping (a spin): long enough that the rank's thread is waiting when the
    request is read, as it is for a real kernel."""
    import time
    end = time.perf_counter() + 0.0003
    while time.perf_counter() < end:
        pass
    return {"x": x}


def voluntary_switches(status):
    with open(status) as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise RuntimeError("no voluntary_ctxt_switches in " + status)


def add_one(a, one):
    """Adds one to every element of a in place (while another branch of the rank calls add_two)."""
    for i in range(len(a)):
        a[i] += one
    return {"sa": float(sum(a))}


def add_two(b, two):
    for i in range(len(b)):
        b[i] += two
    return {"sb": float(sum(b))}


def spawn(x, mode, tag, pidfile):
    """Starts processes that outlive the call unless the worker's stop takes them, each a 'sleep' of a number the
    test chose: a child (TAG), a child in a process group of its own (TAG+1), a shell's background job (TAG+2,
    a grandchild) under the shell exec'd into TAG+3, and an orphan whose parent exited at once (TAG+4). Waits until
    all five run; then returns (mode 'end'), raises ('raise'), or tells the test the worker's pid and waits to be
    killed ('kill'), or to be aborted ('hang'): its pid and its session id in pidfile."""
    import subprocess
    import time
    subprocess.Popen(["sleep", str(tag)])
    subprocess.Popen(["sleep", str(tag + 1)], preexec_fn=os.setpgrp)
    subprocess.Popen(["sh", "-c", "sleep %d & exec sleep %d" % (tag + 2, tag + 3)])
    subprocess.Popen(["sh", "-c", "sleep %d &" % (tag + 4)]).wait()
    wanted = {b"sleep\0%d\0" % (tag + i) for i in range(5)}
    deadline = time.monotonic() + 20
    while wanted - running_commands():
        if time.monotonic() > deadline:
            raise RuntimeError("not all started: %s" % (wanted - running_commands()))
        time.sleep(0.01)
    if mode == "raise":
        raise RuntimeError("failed after starting processes")
    if mode in ("kill", "hang"):
        with open(pidfile + ".part", "w") as f:
            f.write("%d %d" % (os.getpid(), os.getsid(0)))
        os.rename(pidfile + ".part", pidfile)
        time.sleep(600)
    return {"y": x + 1.0}


def running_commands():
    """The command lines (NUL-separated, as /proc has them) of the processes that run now."""
    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    found.add(f.read())
            except OSError:
                pass
    return found


def fail_when(pidfile):
    """Raises once pidfile exists: the rank fails while another rank's kernel runs, and the run aborts it."""
    import time
    deadline = time.monotonic() + 30
    while not os.path.exists(pidfile) and time.monotonic() < deadline:
        time.sleep(0.01)
    raise RuntimeError("the other rank's kernel is running")


def non_finite(j):
    """NaN and infinities inside objects both ways: what a Java activity's came as, and a dict holding Python's own."""
    import math
    seen = ["%s %s" % (type(v).__name__, v) for v in (j["nan"], j["inf"], j["list"][1], j["array"][0])]
    return {"p": {"nan": math.nan, "inf": math.inf, "list": [1.0, -math.inf]}, "seen": " ".join(seen)}


def alias(a):
    """Hands its input back as two outputs, one of them updated in place (ComputeStep stores them as copies)."""
    a[2] = 7.0
    return {"b": a, "c": a, "a": a}


def lie(x):
    """Raises an exception whose text says what a lost worker's failure says: still the kernel's own fault."""
    raise RuntimeError("kernel worker lost: just kidding")


def too_long(x):
    """An int whose decimal text Python 3.11+ refuses to make (over 4300 digits) where a long is expected."""
    return {"n": 10 ** 5000}


def wrong_dtype(x):
    """A float32 array where a double[] is expected (NumPy arithmetic on float32 data keeps float32)."""
    import numpy
    return {"v": numpy.zeros(3, dtype=numpy.float32)}
