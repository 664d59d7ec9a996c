"""Cheap calls from Python, against a ctypes call that does nothing but cross the ABI."""
import ctypes
import os
import sys
import tempfile
import time
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import passcode  # noqa: E402
from passcode import _ffi  # noqa: E402

N = 20000
ROUNDS = 7
#: make bench BENCH_RUNS=n (default 5): the runs whose median the is_set and poll rows give.
RUNS = max(1, min(25, int(os.environ.get("PASSCODE_BENCH_RUNS") or 5)))


def timer(stmt, scope):
    """Seconds per execution of the statement `stmt` (names from `scope`) over n executions,
    timed as timeit times it: a compiled loop around the statement itself, so that a property
    is read as a program reads it (no lambda around it, which would add a call to one side)."""
    t = timeit.Timer(stmt, globals=scope)
    return lambda n=N: t.timeit(n) / n


def row(what, lib, base, bar=None):
    ratio = lib / base
    tail = "" if bar is None else "  bar <= %gx: %s" % (bar, "within" if ratio <= bar else "MISSED")
    print("%-52s %10.0fns %10.0fns %8.2f%s" % (what, lib * 1e9, base * 1e9, ratio, tail))


def row_median(what, lib, base, bar=None):
    """The run of the median ratio (lib[i] / base[i]), and every run's ratio under it."""
    ratios = [a / b for a, b in zip(lib, base)]
    at = ratios.index(sorted(ratios)[(len(ratios) - 1) // 2])
    row(what, lib[at], base[at], bar)
    print("%-52s %s" % ("  (each run's ratio; the row: the median)", " ".join("%.2f" % r for r in ratios)))


with tempfile.TemporaryDirectory(dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None) as d:
    with passcode.Store(os.path.join(d, "b.db"), ops_limit=1, mem_limit=8192) as s:
        s.set_passcode("386491")
        # The C function under store.is_set, called as bare as ctypes allows: what is left over
        # it is the binding's own cost; what it costs over a bare call is ctypes' for its two
        # arguments and the library's own work.
        s.is_set
        scope = {"s": s, "bare": _ffi.lib.passcode_version_number,  # a ctypes call that only crosses the ABI
                 "raw": passcode.store._is_set, "h": s._handle, "ref": s._scratch.i32[0]}
        runs = {name: [] for name in ("bare", "is_set", "poll", "digit", "raw")}
        with s.flow(passcode.FlowKind.UNLOCK) as f:
            scope["f"] = f
            fns = {"bare": timer("bare()", scope), "is_set": timer("s.is_set", scope), "poll": timer("s.lock_screen()", scope),
                   "digit": timer("f.digit(3); f.delete()", scope), "raw": timer("raw(h, ref)", scope)}
            for _ in range(RUNS):
                # Interleaved rounds, the fastest of each kept: the cores are shared, so noise hits all alike.
                best = dict.fromkeys(fns, 1.0)
                for _ in range(ROUNDS):
                    for name, fn in fns.items():
                        best[name] = min(best[name], fn(N // 2 if name == "digit" else N))
                for name in fns:
                    runs[name].append(best[name])
row_median("Python: store.is_set vs a bare ctypes call", runs["is_set"], runs["bare"], 3)
row_median("Python: is_set's C call through raw ctypes vs bare", runs["raw"], runs["bare"])
row_median("Python: store.is_set vs its C call through raw ctypes", runs["is_set"], runs["raw"])
row_median("Python: store.lock_screen() (the poll) vs bare ctypes", runs["poll"], runs["bare"], 12)
row_median("Python: flow.digit (+ delete) vs a bare ctypes call", [v / 2 for v in runs["digit"]], runs["bare"])

# Two threads verifying on two stores vs one thread verifying once (default cost): ctypes
# releases the GIL, so on 2 cores the pair takes about the time of one.
import threading  # noqa: E402

with tempfile.TemporaryDirectory(dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None) as d:
    stores = [passcode.Store(os.path.join(d, f"t{i}.db")) for i in range(2)]
    for st in stores:
        st.set_passcode("386491")
    one = two = 0.0
    for _ in range(5):
        t0 = time.perf_counter()
        stores[0].verify("386491")
        t1 = time.perf_counter()
        threads = [threading.Thread(target=st.verify, args=("386491",)) for st in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        t2 = time.perf_counter()
        one += t1 - t0
        two += t2 - t1
    for st in stores:
        st.close()
print("%-52s %10.1fms %10.1fms %8.2f" % ("Python: 2 threads verify on 2 stores vs 1 verify", two / 5 * 1e3, one / 5 * 1e3, two / one))
