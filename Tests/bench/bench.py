"""Cheap calls from Python, against a ctypes call that does nothing but cross the ABI."""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import passcode  # noqa: E402
from passcode import _ffi  # noqa: E402

N = 20000
with tempfile.TemporaryDirectory(dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None) as d:
    with passcode.Store(os.path.join(d, "b.db"), ops_limit=1, mem_limit=8192) as s:
        s.set_passcode("386491")
        t0 = time.perf_counter()
        for _ in range(N):
            s.is_set
        t1 = time.perf_counter()
        for _ in range(N):
            _ffi.lib.passcode_version_number()
        t2 = time.perf_counter()
        with s.flow(passcode.FlowKind.UNLOCK) as f:
            t3 = time.perf_counter()
            for _ in range(N):
                f.digit(3)
                f.delete()
            t4 = time.perf_counter()
base = (t2 - t1) / N
print("%-52s %10.0fns %10.0fns %8.1f" % ("Python: store.is_set vs a bare ctypes call", (t1 - t0) / N * 1e9, base * 1e9, (t1 - t0) / N / base))
print("%-52s %10.0fns %10.0fns %8.1f" % ("Python: flow.digit (+ delete) vs a bare ctypes call", (t4 - t3) / (2 * N) * 1e9, base * 1e9, (t4 - t3) / (2 * N) / base))

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
