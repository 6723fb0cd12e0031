"""Expected results of the multi-device modules testdata/eval/collective_*.hlo
and sdy_manual_computation_2x2.hlo, for the eval family (eval.py calls
register() with core.py).

Every device's value is computed here with numpy from the semantics of the
collectives (stablehlo-spec.en.md "collective ops" and XLA's process groups:
device = replica * partitions + partition), never by running hlo-run. A
generator returns Devices: one value per device, printed under hlo-run's
`replica R:` (or `replica R partition P:`) headers, after optional outfeed
text.
"""
import itertools

import numpy as np


class Devices:
    def __init__(self, results, partitions=1, prefix=None):
        self.device_results = results
        self.partitions = partitions
        self.prefix = prefix  # list of per-device lists of outfeed values

    def name(self, d):
        if self.partitions == 1:
            return f"replica {d}"
        return f"replica {d // self.partitions} partition {d % self.partitions}"

    def text(self, result_text):
        out = ""
        if self.prefix is not None:
            for d, values in enumerate(self.prefix):
                out += f"{self.name(d)}:\n" + "".join(result_text(v) + "\n" for v in values)
        for d, r in enumerate(self.device_results):
            out += f"{self.name(d)}:\n{result_text(r)}\n"
        return out


def mesh_groups(sizes, devices, refs):
    """The replica groups of `mesh[sizes], device_ids=devices {refs}`, from mesh
    coordinates: refs are (axis, pre, size) with pre=None for a whole axis; a
    sub-axis (pre)size of an axis of n is the middle digit of the axis
    coordinate written in the mixed radix [pre, size, n/(pre*size)]. Devices
    with the same coordinates outside the listed digits form a group, ordered
    by the listed digits (first listed most significant); groups come in the
    order of those other coordinates, axis by axis."""
    devices = np.array(devices).reshape(sizes)

    def digit(coord, axis, pre, size):
        if pre is None:
            return coord[axis], coord[axis]  # digit, its value in the coordinate
        rest = sizes[axis] // (pre * size)
        d = (coord[axis] // rest) % size
        return d, d * rest

    groups = {}
    for coord in itertools.product(*[range(n) for n in sizes]):
        within = []
        left = list(coord)  # coordinates with the listed digits taken out
        for axis, pre, size in refs:
            d, weight = digit(coord, axis, pre, size)
            within.append(d)
            left[axis] -= weight
        groups.setdefault(tuple(left), []).append((tuple(within), int(devices[coord])))
    return [[dev for _, dev in sorted(members)] for _, members in sorted(groups.items())]


def register(g):
    golden, L, tup = g.golden, g.L, g.tup

    def ints(lit):
        return np.array(lit.a, dtype=np.int64)

    @golden("collective_all_reduce_spec")
    def _(c):
        s = ints(c.inputs[0]) + ints(c.inputs[1])
        return Devices([L("s64", s.tolist())] * 2)

    @golden("collective_all_gather_spec")
    def _(c):
        s = np.concatenate([ints(c.inputs[0]), ints(c.inputs[1])], axis=1)
        return Devices([L("s64", s.tolist())] * 2)

    @golden("collective_reduce_scatter_spec")
    def _(c):
        s = ints(c.inputs[0]) + ints(c.inputs[1])
        return Devices([L("s64", s[:, 0:2].tolist()), L("s64", s[:, 2:4].tolist())])

    @golden("collective_permute_spec")
    def _(c):
        x0 = ints(c.inputs[0])
        return Devices([L("s64", np.zeros_like(x0).tolist()), L("s64", x0.tolist())])

    @golden("collective_broadcast_spec")
    def _(c):
        x = [ints(i) for i in c.inputs]
        root = {0: 0, 3: 0, 1: 2, 2: 2}  # groups {2,1} and {0,3}: first member
        return Devices([L("s64", x[root[d]].tolist()) for d in range(4)])

    @golden("collective_replica_ops")
    def _(c):
        x = [10 * r + np.arange(4) for r in range(4)]
        out = []
        for r in range(4):
            a2a = [x[k][r] for k in range(4)]  # chunk r of every replica, in order
            g = [0, 3] if r in (0, 3) else [1, 2]
            mx = np.maximum(x[g[0]], x[g[1]])
            fs = np.float32(sum(x[k].astype(np.float32) for k in range(4)))
            out.append(tup(L("s32", a2a), L("s32", mx.tolist()), L("s32", max(g)),
                           L("f32", fs.tolist())))
        return Devices(out)

    @golden("collective_start_done")
    def _(c):
        x = [r + np.arange(2) for r in range(2)]
        total = x[0] + x[1]
        out = []
        for r in range(2):
            out.append(tup(L("s32", total.tolist()),
                           L("s32", np.concatenate(x).tolist()),
                           L("s32", x[1 - r].tolist()),   # pairs {0,1},{1,0}
                           L("s32", total[r:r + 1].tolist()),
                           L("s32", total.tolist())))
        return Devices(out)

    @golden("collective_partitions")
    def _(c):
        R, P = 2, 2
        v = {(r, p): 10 * r + p for r in range(R) for p in range(P)}
        out = []
        for d in range(R * P):
            r, p = divmod(d, P)
            cr = [v[(q, p)] for q in range(R)]                       # cross-replica
            crp = [v[(q, s)] for q in range(R) for s in range(P)]    # replica-major
            group = [0, 3] if d in (0, 3) else [1, 2]                # flattened ids
            flat = [v[divmod(e, P)] for e in group]
            # all-to-all across the partitions of replica r, on the cr values
            cr_of = {s: [v[(q, s)] for q in range(R)] for s in range(P)}
            cp = [cr_of[s][p] for s in range(P)]
            out.append(tup(L("u32", cr), L("u32", crp), L("u32", flat), L("u32", cp)))
        return Devices(out, partitions=P)

    @golden("collective_send_recv")
    def _(c):
        x = [np.array([r, r + 10]) for r in range(4)]
        out = []
        for r in range(4):
            ring = x[(r - 1) % 4]
            only = x[0] if r == 2 else np.zeros(2, dtype=np.int64)
            out.append(tup(L("s32", ring.tolist()), L("s32", only.tolist())))
        return Devices(out)

    @golden("collective_loop")
    def _(c):
        ids = list(range(4))
        x = ids
        for _trip in range(3):  # each trip all-reduces every replica's x
            x = [sum(x)] * 4
        out = []
        for r in ids:
            prev = ids[(r - 1) % 4]  # collective-permute r-1 -> r
            out.append(tup(L("s32", x[r]), L("s32", ids), L("s32", prev)))
        return Devices(out)

    @golden("collective_infeed_outfeed")
    def _(c):
        feed = [1.5, 2.0]
        outfeed = [[L("f32", [f + r for f in feed])] for r in range(2)]
        return Devices([L("s32", 7 + 7)] * 2, prefix=outfeed)

    @golden("collective_ragged_all_to_all")
    def _(c):
        # Replica k sends rows input_k[in_off_k[j] : +size_k[j]] to replica j,
        # written at out_off_k[j] of j's output (which starts as its output
        # operand, -1 everywhere).
        inp = [np.array([[1, 2], [3, 4], [5, 6]]), np.array([[7, 8], [9, 10], [11, 12]])]
        in_off = [[0, 1], [0, 2]]
        size = [[1, 2], [2, 1]]
        out_off = [[0, 0], [1, 2]]
        res = []
        for j in range(2):
            o = np.full((4, 2), -1)
            for k in range(2):
                n = size[k][j]
                o[out_off[k][j]:out_off[k][j] + n] = inp[k][in_off[k][j]:in_off[k][j] + n]
            res.append(L("s32", o.tolist()))
        return Devices(res)

    @golden("collective_mesh_groups")
    def _(c):
        iota = np.arange(8).reshape(4, 2).T.reshape(-1).tolist()  # [4,2]T(1,0)
        specs = [
            ([2, 4], list(range(8)), [(1, None, 4)]),
            ([2, 4], list(range(8)), [(1, None, 4), (0, None, 2)]),
            ([2, 4], iota, [(0, None, 2)]),
            ([2, 4], list(range(7, -1, -1)), [(1, 2, 2)]),
            ([8], list(range(8)), [(0, 4, 2), (0, 1, 2)]),
            ([2, 4], list(range(8)), []),
        ]
        per_spec = [mesh_groups(*spec) for spec in specs]
        out = []
        for d in range(8):
            mine = [next(grp for grp in groups if d in grp) for groups in per_spec]
            out.append(tup(*[L("u32", grp) for grp in mine]))
        return Devices(out, partitions=8)

    @golden("collective_random_inputs")
    def _(c):
        # Different seeds give different floats; the sum of replica-ids is 3.
        return Devices([tup(L("pred", True), L("u32", 3))] * 3)

    @golden("collective_single_device")
    def _(c):
        x = c.x  # the module's constant
        return tup(x, x, x, x, x, L("u32", 0), L("u32", 0))

    @golden("sdy_manual_computation_2x2")
    def _(c):
        # shard_map on a 2x2 mesh run as the global computation: device
        # (x, y) holds block a[2x:2x+2, 2y:2y+2]; its group over 'x' sums the
        # blocks of its column, its group over 'y' concatenates the blocks of
        # its row; the results are put together by their out_shardings
        # (psum: dim 1 over 'y'; all-gather: dim 0 over 'x').
        a = np.arange(16, dtype=np.float32).reshape(4, 4)
        block = {(x, y): a[2 * x:2 * x + 2, 2 * y:2 * y + 2] for x in range(2) for y in range(2)}
        psum = {(x, y): block[0, y] + block[1, y] for x in range(2) for y in range(2)}
        gathered = {(x, y): np.concatenate([block[x, 0], block[x, 1]], axis=1)
                    for x in range(2) for y in range(2)}
        psum_global = np.concatenate([psum[0, 0], psum[0, 1]], axis=1)
        gathered_global = np.concatenate([gathered[0, 0], gathered[1, 0]], axis=0)
        return tup(L("f32", psum_global.tolist()), L("f32", gathered_global.tolist()))
