"""The Python side of the MPFL kernel protocol (docs/kernel-protocol.md).

One worker process per rank runs this module as a script, in the user's own interpreter; it imports the
kernels named by <compute python="MODULE:FUNCTION"/> and calls them with the rank's values. Pure Python,
standard library only: NumPy is used when it is importable (arrays are ndarray views of the shared
memory), array.array otherwise.

The control channel is the Unix socket named by $MPFL_KERNEL_SOCKET, never stdin/stdout: whatever a
kernel prints becomes the rank's log lines.
"""
import array
import importlib
import io
import json
import mmap
import os
import re
import select
import socket
import struct
import sys
import traceback

PROTOCOL = 1
ALIGN = 64
MAX_PLANS = 256  # parsed call requests kept (a site whose scalars change every call makes a new one each time)

# NumPy is imported at the first array value (need_numpy), not at the start: it is most of a worker's start-up
# (docs/kernel-protocol.md, "Starting"), and a worker whose kernels pass no arrays never needs it
numpy = None
numpy_tried = False
# the workflow's library entries of sys.path (main()), which NumPy's own import must not see
libraries = []


def need_numpy():
    """NumPy, imported now if it was not; None when it is not importable (NumPy hidden or absent: arrays are
    array.array)."""
    global numpy, numpy_tried
    if not numpy_tried:
        numpy_tried = True
        try:
            numpy = import_without_libraries("numpy")
        except ImportError:
            numpy = None
    return numpy


def import_without_libraries(name):
    """Imports a module of Python's or an installed one as if the workflow's libraries were not there: NumPy imports
    modules of the standard library when first imported (numbers, pickle, platform ...), and a library module of
    such a name (numbers.py next to a kernel) would be taken for it. The libraries are off sys.path meanwhile, and
    the modules loaded from them out of sys.modules (then put back: the kernels keep their own)."""
    def from_libraries(module):
        where = getattr(module, "__file__", None) or ""
        return any(where.startswith(entry + os.sep) for entry in libraries)

    path = list(sys.path)
    mine = {n: m for n, m in list(sys.modules.items()) if from_libraries(m)}
    sys.path[:] = [p for p in path if p not in libraries]
    for n in mine:
        del sys.modules[n]
    try:
        return importlib.import_module(name)
    finally:
        sys.path[:] = path
        sys.modules.update(mine)


def adopt_numpy():
    """Takes NumPy once a kernel imported it: its values (numpy.float64, ndarray) can then be among the outputs."""
    if not numpy_tried and "numpy" in sys.modules:
        need_numpy()

# MPFL array type -> (array.array type code, NumPy dtype name, element size)
ARRAYS = {"int[]": ("i", "int32", 4), "long[]": ("q", "int64", 8), "double[]": ("d", "float64", 8)}
DTYPES = {v[1]: k for k, v in ARRAYS.items()}
CODES = {v[0]: k for k, v in ARRAYS.items()}
if array.array("l").itemsize == 8:
    CODES.setdefault("l", "long[]")


FRAME = re.compile(r'  File "([^"]*)", line \d+, in ')


def internal_frame(text):
    """Whether a traceback entry is a frame of this worker or of importlib (not the user's code)."""
    m = FRAME.match(text)
    return m is not None and (m.group(1).endswith("mpfl_kernel.py") or m.group(1).startswith("<frozen importlib")
                              or (os.sep + "importlib" + os.sep) in m.group(1))


class OutputError(Exception):
    """A returned value that does not fit its output: the message names output, expected and actual."""


class Arena:
    """The rank's shared-memory file: input arrays are placed by Java, outputs appended here.

    The mapping is renewed only when a region lies beyond it (Java or this side grew the file): no
    system call in a call whose values fit."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR)
        self.map = None
        self.bytes = None  # the mapping as a NumPy uint8 array, made with NumPy's first use (uint8())
        self.size = 0
        self.base = 0  # the mapping's address, with self.bytes
        self.remap()

    def remap(self):
        size = os.fstat(self.fd).st_size
        if size == self.size:
            return
        # the old mapping stays alive while views of it exist; it is released with them
        self.map = mmap.mmap(self.fd, size) if size > 0 else None
        self.size = size
        self.bytes = None
        self.uint8()

    def uint8(self):
        """The mapping as a NumPy uint8 array (views of it are cheaper than frombuffer), once NumPy is imported; else None."""
        if self.bytes is None and numpy is not None and self.map is not None:
            self.bytes = numpy.frombuffer(self.map, dtype=numpy.uint8)
            self.base = self.bytes.__array_interface__["data"][0]
        return self.bytes

    def covers(self, end):
        """Whether the mapping reaches end (after a remap if the file grew)."""
        if end > self.size:
            self.remap()
        return end <= self.size

    def ensure(self, end):
        if not self.covers(end):
            os.ftruncate(self.fd, max(end, self.size * 2))
            self.remap()

    def view(self, type_name, offset, count):
        code, dtype, width = ARRAYS[type_name]
        if not self.covers(offset + count * width):
            raise ValueError("region %d+%d lies outside the shared memory (%d bytes)" % (offset, count * width, self.size))
        if need_numpy() is not None:
            return self.uint8()[offset:offset + count * width].view(dtype)
        values = array.array(code)
        if array.array(code).itemsize != width:
            raise RuntimeError("array.array('%s') is not %d bytes here" % (code, width))
        values.frombytes(self.map[offset:offset + count * width])
        return values

    def region_of(self, value):
        """The offset of an ndarray that is a view of the current mapping, else None (it is copied). The caller
        takes it only for a whole input: a part of one (a slice) lies below FREE, where the rank takes back
        nothing but an input's own region."""
        if numpy is None or not isinstance(value, numpy.ndarray) or self.uint8() is None:
            return None
        if value.base is not self.bytes:  # NumPy collapses a view's base to the mapping's array
            return None
        start = value.__array_interface__["data"][0]
        if self.base <= start and start + value.nbytes <= self.base + self.size and value.flags.c_contiguous:
            return start - self.base
        return None

    def put_array(self, free, value):
        """Copies a 1-D ndarray (contiguous or not) at the first aligned offset >= free; returns (offset, next free)."""
        offset = (free + ALIGN - 1) // ALIGN * ALIGN
        end = offset + value.nbytes
        self.ensure(end)
        self.uint8()[offset:end].view(value.dtype)[:] = value  # one NumPy copy, no intermediate
        return offset, end

    def put(self, free, data):
        """Copies bytes-like data at the first aligned offset >= free; returns (offset, next free)."""
        offset = (free + ALIGN - 1) // ALIGN * ALIGN
        length = len(data) if isinstance(data, (bytes, bytearray)) else memoryview(data).nbytes
        self.ensure(offset + length)
        self.map[offset:offset + length] = memoryview(data).cast("B") if not isinstance(data, (bytes, bytearray)) else data
        return offset, offset + length


class LineEnding(io.TextIOWrapper):
    """sys.stdout and sys.stderr of a worker: remembers whether the last text written left a line open, so that the
    worker ends it before it answers (end_line). The rank shows the kernel's output line by line: a
    print("step done", end="") in each of three calls is three lines, not one line at the worker's end."""

    open_line = False

    def write(self, text):
        written = super().write(text)
        if text:
            self.open_line = text[-1] != "\n"
        return written

    def end_line(self):
        if self.open_line:
            self.open_line = False
            try:
                super().write("\n")
            except (OSError, ValueError):
                pass  # a kernel closed its stdout or stderr: nothing of it is shown any more


def line_ending(stream):
    """stream (-u: unbuffered, written through) as a LineEnding on the same file, the old wrapper detached so that
    its collection does not close the file."""
    encoding, errors = stream.encoding, stream.errors
    return LineEnding(stream.detach(), encoding=encoding, errors=errors, write_through=True)


class Channel:
    """Frames on the control socket: one recv usually brings a whole request, one sendall sends an answer.

    A receive waits in poll(POLLIN) before each recv: a recv blocked on a Unix stream socket is also woken
    each time the rank reads an answer this side sent (docs/kernel-protocol.md, "Waiting")."""

    def __init__(self, sock):
        self.sock = sock
        self.pending = b""
        self.readable = select.poll()
        self.readable.register(sock, select.POLLIN)

    def receive(self):
        data = self.pending
        while len(data) < 4:
            self.readable.poll()
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                return None
            data += chunk
        (length,) = struct.unpack_from("<I", data)
        if len(data) < 4 + length:
            chunks = [data]
            missing = 4 + length - len(data)
            while missing > 0:
                self.readable.poll()
                chunk = self.sock.recv(max(missing, 1 << 16))
                if not chunk:
                    return None
                chunks.append(chunk)
                missing -= len(chunk)
            data = b"".join(chunks)
        self.pending = data[4 + length:]
        return data[4:4 + length].decode("utf-8")

    def send(self, text):
        # what the request printed is whole lines before its answer leaves (LineEnding)
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, LineEnding):
                stream.end_line()
        data = text.encode("utf-8")
        self.sock.sendall(struct.pack("<I", len(data)) + data)


def decode(arena, type_name, payload):
    if type_name in ("int", "long"):
        return int(payload)
    if type_name == "double":
        return float(payload)
    if type_name == "boolean":
        return payload == "true"
    if type_name == "string":
        return json.loads(payload)
    if type_name == "object":
        return json.loads(payload)
    if type_name not in ARRAYS and type_name != "bytes":
        raise ValueError("unknown type")
    offset, count = payload.split(" ")
    offset, count = int(offset), int(count)
    if type_name == "bytes":
        if not arena.covers(offset + count):
            raise ValueError("region %d+%d lies outside the shared memory (%d bytes)" % (offset, count, arena.size))
        return bytes(arena.map[offset:offset + count])
    return arena.view(type_name, offset, count)


def describe(value):
    if numpy is not None and isinstance(value, numpy.ndarray):
        return "numpy.ndarray %s shape %s" % (value.dtype, tuple(value.shape))
    if isinstance(value, array.array):
        return "array.array('%s') of %d" % (value.typecode, len(value))
    return type(value).__module__.replace("builtins", "").strip(".") + ("." if type(value).__module__ != "builtins" else "") \
        + type(value).__qualname__


def encode(arena, name, expected, value, free, regions, whole):
    """The result line of one output and the next free offset; OutputError if it does not fit. regions: the input
    arrays' offsets by id; whole: the (offset, count, type) of every input array."""
    def wrong():
        hint = ""
        if expected in ARRAYS and isinstance(value, (list, tuple)):
            # a list is the natural thing to return; the array types the protocol takes are these
            code, dtype, _ = ARRAYS[expected]
            hint = " (return %s)" % ("numpy.array(…, dtype=numpy.%s)" % dtype if need_numpy() is not None
                                     else "array.array('%s', …): NumPy is not importable here" % code)
        elif expected in ARRAYS and numpy is not None and isinstance(value, numpy.ndarray):
            # NumPy keeps a float32 or int64 array's dtype through arithmetic, and a 2-D grid is a natural result: the
            # conversion the protocol needs is one call
            if value.ndim != 1:
                hint = " (return a 1-D array: ….ravel() flattens it)"
            elif value.dtype != ARRAYS[expected][1]:
                hint = " (return ….astype(numpy.%s))" % ARRAYS[expected][1]
        return OutputError("output '%s': expected %s, got %s%s" % (name, expected, describe(value), hint))

    if expected in ARRAYS:
        return encode_array(arena, name, expected, value, free, regions, whole, wrong)
    if expected in ("int", "long"):
        if isinstance(value, bool) or not is_integer(value):
            raise wrong()
        number = int(value)
        limit = 2 ** 31 if expected == "int" else 2 ** 63
        if not -limit <= number < limit:
            # a number of hundreds of digits would fill the message (and beyond 4300 its str() raises ValueError in
            # Python 3.11+): said by its size in bits, next to a long's 64
            shown = "%d" % number if number.bit_length() <= 96 else "an int of %d bits" % number.bit_length()
            raise OutputError("output '%s': expected %s, got %s (out of range)" % (name, expected, shown))
        return "%s %s %d" % (name, expected, number), free
    if expected == "double":
        if isinstance(value, bool) or not (isinstance(value, float) or is_integer(value)
                                           or (numpy is not None and isinstance(value, numpy.floating))):
            raise wrong()
        try:
            number = float(value)
        except OverflowError:  # a Python int has no bound; beyond about 1.8e308 no double holds it
            raise OutputError("output '%s': expected double, got %s (too large for a double)" % (name, describe(value)))
        return "%s double %s" % (name, repr(number)), free
    if expected == "boolean":
        if not isinstance(value, bool) and not (numpy is not None and isinstance(value, numpy.bool_)):
            raise wrong()
        return "%s boolean %s" % (name, "true" if value else "false"), free
    if expected == "string":
        if not isinstance(value, str):
            raise wrong()
        return "%s string %s" % (name, json.dumps(value)), free
    if expected == "object":
        try:
            # NaN and infinities are the tokens NaN, Infinity, -Infinity, as in a Java activity's object (Double.NaN)
            return "%s object %s" % (name, json.dumps(value, separators=(",", ":"), default=plain)), free
        except (TypeError, ValueError) as e:
            raise OutputError("output '%s': expected object (JSON-like values), got %s (%s)" % (name, describe(value), e))
    if expected == "bytes":
        if not isinstance(value, (bytes, bytearray)):
            raise wrong()
        offset, free = arena.put(free, bytes(value))
        return "%s bytes %d %d" % (name, offset, len(value)), free
    raise wrong()


def encode_array(arena, name, expected, value, free, regions, whole, wrong):
    code, dtype, width = ARRAYS[expected]
    if numpy is not None and isinstance(value, numpy.ndarray):
        if value.dtype != dtype or value.ndim != 1:
            raise wrong()
        offset = regions.get(id(value))  # an input returned as it is (updated in place or not)
        if offset is None:
            offset = arena.region_of(value)  # another view of a whole input (x[:], x.reshape(-1)) comes back without a copy
            if offset is not None and (offset, value.shape[0], expected) not in whole:
                offset = None  # a slice of an input (x[1:3]): copied at or after FREE
        if offset is None:
            offset, free = arena.put_array(free, value)
        return "%s %s %d %d" % (name, expected, offset, value.shape[0]), free
    if isinstance(value, array.array):
        if CODES.get(value.typecode) != expected or value.itemsize != width:
            raise wrong()
        region = regions.get(id(value))
        if region is not None and (region, len(value), expected) in whole:  # not if resized: a new value
            return "%s %s %d %d" % (name, expected, region, len(value)), free
        offset, free = arena.put(free, value)
        return "%s %s %d %d" % (name, expected, offset, len(value)), free
    raise wrong()


def is_integer(value):
    return isinstance(value, int) or (numpy is not None and isinstance(value, numpy.integer))


def plain(value):
    """JSON for NumPy scalars and arrays inside object values."""
    if numpy is not None:
        if isinstance(value, numpy.ndarray):
            return value.tolist()
        if isinstance(value, numpy.generic):
            return value.item()
    if isinstance(value, array.array):
        return value.tolist()
    raise TypeError("%s is not JSON-like" % describe(value))


class Worker:
    def __init__(self, channel, arena, root, shown):
        self.channel = channel
        self.arena = arena
        self.root = root
        self.shown = shown  # the directories that file names are shown relative to (short())
        self.functions = {}
        self.plans = {}
        self.pid = os.getpid()  # a child the kernel forks has another: it must never answer (run())

    def function(self, target):
        f = self.functions.get(target)
        if f is None:
            module_name, _, function_name = target.partition(":")
            module = importlib.import_module(module_name)
            self.not_shadowed(module_name)
            f = getattr(module, function_name, None)
            if f is None:
                raise LookupError("module '%s' (%s) has no function '%s'"
                                  % (module_name, self.short(getattr(module, "__file__", "?")), function_name))
            if not callable(f):
                raise LookupError("'%s' in module '%s' is not a function" % (function_name, module_name))
            self.functions[target] = f
        return f

    def not_shadowed(self, module_name):
        """A library module named as one Python had imported before the libraries were on the path (one this worker
        uses itself, e.g. json) is never loaded: the earlier module answers to the name. Said as such."""
        top = module_name.split(".")[0]
        loaded = sys.modules.get(top)
        where = getattr(loaded, "__file__", None) or ""
        if any(where.startswith(root + os.sep) for root in self.root):
            return
        for root in self.root:
            mine = [p for p in (os.path.join(root, top + ".py"), os.path.join(root, top)) if os.path.exists(p)]
            if mine:
                raise LookupError("module '%s' is Python's own or an installed one (%s), not the workflow's %s: the worker"
                                  " had imported a module of that name before the workflow's libraries; rename the"
                                  " kernel module" % (top, where or "built in", self.short(mine[0])))

    def short(self, path):
        for root in self.shown:
            if path.startswith(root + os.sep):
                return path[len(root) + 1:]
        return path

    def failure(self, kind, error, head=None):
        """Sends error KIND: the head line, if any, then the traceback from the kernel's frames on."""
        lines = traceback.format_exception(type(error), error, error.__traceback__)
        # the worker's own frames and importlib's (a module that does not import) say nothing to the user: keep the
        # traceback from the kernel's call or module on, as Python's own import statement does
        frames = [l for l in lines if not internal_frame(l)]
        # a "Traceback" header whose frames were all left out goes too (a SyntaxError's location follows it)
        kept = [l for i, l in enumerate(frames)
                if not (l.startswith("Traceback") and (i + 1 == len(frames) or not FRAME.match(frames[i + 1])))]
        text = "".join(kept)
        for root in self.shown:
            text = text.replace(root + os.sep, "")
        text = text.rstrip("\n")
        self.channel.send("error %s\n%s" % (kind, text if head is None else head + "\n" + text))

    def serve(self):
        self.channel.send("ready %d" % PROTOCOL)
        while True:
            message = self.channel.receive()
            if message is None or message == "exit":
                return
            lines = message.split("\n")
            words = lines[0].split(" ")
            if words[0] == "load":
                try:
                    self.function(words[1])
                except Exception as e:  # ImportError, SyntaxError, LookupError ...
                    self.failure("load", e)
                    continue
                self.channel.send("ok")
            elif words[0] == "call":
                plan = self.plans.get(message)
                if plan is None:
                    plan = self.plan(words[1], int(words[2]), lines[1:])
                    if plan is None:
                        continue
                    if len(self.plans) >= MAX_PLANS:
                        self.plans.clear()
                    self.plans[message] = plan
                self.call(plan)
            else:
                self.channel.send("error protocol\nunknown request '%s'" % words[0])

    def plan(self, target, free, lines):
        """A call request parsed once: a call site sends the same text call after call (the same offsets and
        scalars), so the parse is kept by the request's text; only arrays, bytes and objects are read anew
        each call. None (after a protocol error) if an input cannot be read."""
        inputs = []
        outputs = []
        for line in lines:
            role, name, type_name, payload = (line.split(" ", 3) + [""])[:4]
            if role == "in":
                try:
                    value = decode(self.arena, type_name, payload)
                except ValueError as e:
                    self.channel.send("error protocol\ninput '%s' (%s %s): %s" % (name, type_name, payload, e))
                    return None
                if type_name in ARRAYS:
                    offset, count = payload.split(" ")
                    inputs.append((name, type_name, int(offset), int(count)))
                elif type_name in ("bytes", "object"):
                    inputs.append((name, type_name, payload, None))
                else:  # int, long, double, boolean, string: immutable
                    inputs.append((name, None, value, None))
            elif role == "out":
                outputs.append((name, type_name))
        return target, free, inputs, outputs

    def run(self, function, inputs):
        """The kernel's call. A child it forked (os.fork()) and did not end comes back here, sharing the parent's control
        channel: it ends now, whatever the kernel returned or raised, so that only the parent answers (the child's
        answer would be taken for the next call's) and only the parent reads the next request."""
        try:
            return function(**inputs)
        finally:
            if os.getpid() != self.pid:
                os.write(2, b"mpfl: a process forked by the kernel returned from it into the worker; it exits here (status 0)"
                            b" and the worker answers alone: end a forked child with os._exit()\n")
                os._exit(0)

    def call(self, plan):
        target, free, specs, outputs = plan
        arena = self.arena
        inputs = {}
        regions = {}
        whole = set()
        placed = []
        for name, type_name, a, b in specs:
            if type_name is None:
                inputs[name] = a
            elif b is None:
                try:
                    inputs[name] = decode(arena, type_name, a)
                except ValueError as e:
                    self.channel.send("error protocol\ninput '%s' (%s %s): %s" % (name, type_name, a, e))
                    return
            else:
                try:
                    value = arena.view(type_name, a, b)
                except ValueError as e:
                    self.channel.send("error protocol\ninput '%s' (%s %d %d): %s" % (name, type_name, a, b, e))
                    return
                inputs[name] = value
                regions[id(value)] = a  # an input returned as it is comes back as its own region
                whole.add((a, b, type_name))
                if numpy is None:
                    placed.append((a, b, value))
        try:
            function = self.function(target)
            returned = self.run(function, inputs)
        except Exception as e:
            self.failure("exception", e)
            return
        except SystemExit as e:
            # the kernel meant to end its worker: answered as such, and the worker stays until the failing rank stops
            # it. Ending here would leave the rank an exit status it cannot tell from a death by a signal (Java
            # reports signal N as status 128 + N: a sys.exit(137) would read as SIGKILL from outside, an
            # infrastructure fault, and be retried), and the answer could be lost to the end of the channel
            self.failure("exit", e, "sys.exit(%r)" % (e.code,))
            return
        except BaseException as e:
            # KeyboardInterrupt, GeneratorExit or a library's own BaseException: raised by the kernel (the worker leads
            # a session of its own, so no terminal's Ctrl-C reaches it), hence the kernel's exception like any other,
            # not a crash of the worker with this module's frames
            self.failure("exception", e)
            return
        finally:
            for offset, count, value in placed:  # array.array inputs are copies: in-place updates go back
                # one the kernel lengthened or shortened (append, del) fits no rank array: it is not written back
                if len(value) == count:
                    self.arena.map[offset:offset + count * value.itemsize] = value.tobytes()
        adopt_numpy()
        if outputs and not isinstance(returned, dict):
            self.channel.send("error output\n%s returned %s, not a dict of the outputs %s"
                              % (target, describe(returned), [n for n, _ in outputs]))
            return
        result = ["result"]
        try:
            for name, expected in outputs:
                if name not in returned:
                    # sorted by repr: keys of several types (1 and 'z') do not compare with each other
                    raise OutputError("output '%s' (%s) was not returned (the dict has [%s])"
                                      % (name, expected, ", ".join(sorted(map(repr, returned)))))
                line, free = encode(self.arena, name, expected, returned[name], free, regions, whole)
                result.append(line)
        except OutputError as e:
            self.channel.send("error output\n%s" % e)
            return
        self.channel.send("\n".join(result))


def main():
    libraries.extend(p for p in os.environ.get("MPFL_KERNEL_PATH", "").split(os.pathsep) if p)
    for entry in reversed(libraries):
        sys.path.insert(0, entry)
    roots = [p for p in os.environ.get("MPFL_KERNEL_PATH", "").split(os.pathsep) if p and os.path.isdir(p)]
    # a zip's modules are shown as ZIP/module.py (its frames read /tmp/mpfl-kernels-…/k.zip/zpkg/__init__.py)
    shown = roots + [os.path.dirname(p) for p in os.environ.get("MPFL_KERNEL_PATH", "").split(os.pathsep)
                     if p and os.path.isfile(p)]
    sys.stdin = open(os.devnull)
    sys.stdout = sys.__stdout__ = line_ending(sys.stdout)
    sys.stderr = sys.__stderr__ = line_ending(sys.stderr)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.environ["MPFL_KERNEL_SOCKET"])
    except (ConnectionRefusedError, FileNotFoundError):
        # the rank is gone before this worker connected (aborted while it started: another rank failed first); a
        # traceback would only reach that aborted rank's log as warnings about a failure that is not this kernel's
        sock.close()
        return
    arena = Arena(os.environ["MPFL_KERNEL_SHM"])
    try:
        Worker(Channel(sock), arena, roots, shown).serve()
    except (ConnectionResetError, BrokenPipeError):
        pass  # the rank closed its end (it ended or was aborted): nobody reads a traceback or an answer any more
    finally:
        sock.close()


def taken_names():
    """The top-level module names a kernel module cannot have (Worker.not_shadowed says so at its load): those of the
    modules loaded once this module's own imports are done, the interpreter's start-up's included, and those built
    into the interpreter, which Python finds before any path entry. mpflc check asks for them (--taken-names)."""
    # imported by the worker at its first array, without the libraries (import_without_libraries); a kernel module that
    # imports NumPy itself does so with the libraries on sys.path, so a kernel module may not be named as NumPy's either
    need_numpy()
    return sorted({name.split(".")[0] for name in sys.modules} | set(sys.builtin_module_names))


if __name__ == "__main__":
    if sys.argv[1:] == ["--taken-names"]:
        print(json.dumps(taken_names()))
    else:
        main()
