"""A store's count of attempts (its state row attempt_seq) as passcoded committed it, read through
a read-only connection to the WAL store. Run it as passcoded's own user, the owner of the store
files, so that no -wal or -shm file of another user's is made.

    attempt_count.py STORE               prints the count
    attempt_count.py STORE --wait SECS   prints "READY <count>", reads a line, then prints "COUNTED"
                                         once the count has risen (within SECS), else "NOT COUNTED":
                                         the moment passcoded has taken an attempt, for a test that
                                         kills a process then rather than after a guessed delay
"""
import sqlite3
import sys
import time


def seq(path):
    con = sqlite3.connect("file:" + path + "?mode=ro", uri=True, timeout=10)
    try:
        row = con.execute("SELECT value FROM state WHERE key = 'attempt_seq'").fetchone()
        return int(row[0]) if row else 0
    finally:
        con.close()


path = sys.argv[1]
if len(sys.argv) < 4 or sys.argv[2] != "--wait":
    print(seq(path))
    sys.exit(0)
base = seq(path)
print("READY", base, flush=True)
sys.stdin.readline()
end = time.monotonic() + float(sys.argv[3])
while time.monotonic() < end:
    if seq(path) > base:
        print("COUNTED", flush=True)
        break
    time.sleep(0.002)
else:
    print("NOT COUNTED", flush=True)
