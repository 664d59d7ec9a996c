"""Cheap calls from Python, against a ctypes call that does nothing but cross the ABI."""
import ctypes
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import passcode  # noqa: E402
from passcode import _ffi  # noqa: E402

N = 20000
ROUNDS = 7


def timed(fn, n=N):
    """Seconds per call of fn() over n calls."""
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def row(what, lib, base, bar=None):
    ratio = lib / base
    tail = "" if bar is None else "  bar <= %gx: %s" % (bar, "within" if ratio <= bar else "MISSED")
    print("%-52s %10.0fns %10.0fns %8.1f%s" % (what, lib * 1e9, base * 1e9, ratio, tail))


with tempfile.TemporaryDirectory(dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None) as d:
    with passcode.Store(os.path.join(d, "b.db"), ops_limit=1, mem_limit=8192) as s:
        s.set_passcode("386491")
        bare_call = _ffi.lib.passcode_version_number  # a ctypes call that only crosses the ABI
        is_set = lambda: s.is_set  # noqa: E731
        # Interleaved rounds, the fastest of each kept: the cores are shared, so noise hits all alike.
        # The C function under store.is_set, called as bare as ctypes allows: what is left over
        # it is the binding's own cost.
        raw_fn, h, ref = passcode.store._is_set, s._handle, ctypes.byref(ctypes.c_int32())
        raw = lambda: raw_fn(h, ref)  # noqa: E731
        best = {"bare": 1.0, "is_set": 1.0, "poll": 1.0, "digit": 1.0, "raw": 1.0}
        with s.flow(passcode.FlowKind.UNLOCK) as f:
            def digit():
                f.digit(3)
                f.delete()
            for _ in range(ROUNDS):
                for name, fn, n in (("bare", bare_call, N), ("is_set", is_set, N), ("poll", s.lock_screen, N),
                                    ("digit", digit, N // 2), ("raw", raw, N)):
                    best[name] = min(best[name], timed(fn, n))
base = best["bare"]
row("Python: store.is_set vs a bare ctypes call", best["is_set"], base, 6)
row("Python: store.lock_screen() (the poll) vs bare ctypes", best["poll"], base, 12)
row("Python: store.is_set vs its C call through raw ctypes", best["is_set"], best["raw"])
row("Python: flow.digit (+ delete) vs a bare ctypes call", best["digit"] / 2, base)

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
