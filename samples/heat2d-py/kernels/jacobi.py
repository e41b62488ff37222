"""heat2d's Jacobi sweep in NumPy, for <compute python="jacobi:..."/> (samples/heat2d-py).

The rank's block lives in the MPFL variable 'field' (a double[] of (rows + 2) x (columns + 2) cells:
the block with a ring of ghost cells), not in this module: returned variables are ordinary rank
variables, so <checkpoint/> saves them and a restarted rank goes on from them. What this module keeps
for itself (the scratch buffer below) is only a cache that it rebuilds when it is missing — after a
restart the worker is a new process and module state starts empty.

The arithmetic is the Java kernel's (org.mpfl.samples.heat2d.Plate) in the same order —
0.25 * (((north + south) + west) + east), then |new - old| and its maximum — so the iterations and the
residual equal heat2d's bit for bit.
"""
import numpy

HOT_EDGE = 100.0
COLD_EDGE = 0.0

_scratch = {}  # shape -> work arrays of the sweep; rebuilt on demand (the idiom for module state)


def _work(shape):
    work = _scratch.get(shape)
    if work is None:
        work = (numpy.empty(shape), numpy.empty(shape))
        _scratch[shape] = work
    return work


def _block_length(length, parts, index):
    return length // parts + (1 if index < length % parts else 0)


def _edges(u):
    return {"northEdge": u[1, 1:-1].copy(), "southEdge": u[-2, 1:-1].copy(),
            "westEdge": u[1:-1, 1].copy(), "eastEdge": u[1:-1, -2].copy()}


def setup(globalRows, globalColumns, gridDims, gridCoords, north, south, west, east):
    """This rank's block with its fixed edge temperatures, and its first edges to send."""
    rows = _block_length(globalRows, gridDims[0], gridCoords[0])
    columns = _block_length(globalColumns, gridDims[1], gridCoords[1])
    if rows == 0 or columns == 0:
        raise ValueError("a %dx%d plate is too small for a %dx%d grid of ranks"
                         % (globalRows, globalColumns, gridDims[0], gridDims[1]))
    u = numpy.zeros((rows + 2, columns + 2))
    if north < 0:
        u[0, 1:-1] = HOT_EDGE
    if south < 0:
        u[-1, 1:-1] = COLD_EDGE
    if west < 0:
        u[1:-1, 0] = COLD_EDGE
    if east < 0:
        u[1:-1, -1] = COLD_EDGE
    result = {"field": u.ravel(), "blockRows": rows, "blockColumns": columns}
    result.update(_edges(u))
    return result


def sweep(field, blockRows, blockColumns, north, south, west, east, northHalo, southHalo, westHalo, eastHalo):
    """Stores the neighbours' halos in the ghost cells, does one Jacobi sweep in place, returns the largest change."""
    u = field.reshape(blockRows + 2, blockColumns + 2)  # a view: the update is in place, in shared memory
    if north >= 0:
        u[0, 1:-1] = northHalo
    if south >= 0:
        u[-1, 1:-1] = southHalo
    if west >= 0:
        u[1:-1, 0] = westHalo
    if east >= 0:
        u[1:-1, -1] = eastHalo
    updated, change = _work((blockRows, blockColumns))
    numpy.add(u[:-2, 1:-1], u[2:, 1:-1], out=updated)
    numpy.add(updated, u[1:-1, :-2], out=updated)
    numpy.add(updated, u[1:-1, 2:], out=updated)
    numpy.multiply(updated, 0.25, out=updated)
    numpy.subtract(updated, u[1:-1, 1:-1], out=change)
    residual = float(numpy.abs(change, out=change).max())
    u[1:-1, 1:-1] = updated
    result = {"field": field, "localResidual": residual}
    result.update(_edges(u))
    return result
