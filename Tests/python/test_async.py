"""The calls that run Argon2id release the GIL (ctypes does) and have asyncio variants."""
import asyncio
import sys
import threading
import time

import pytest

import passcode
from conftest import PC1, PC2, ONLY_COST

# Costly enough (64 MiB) that another thread is scheduled while the call is inside Argon2id; no
# test here measures how long anything took.
SLOW = dict(ops_limit=4, mem_limit=64 * 1024 * 1024)


def test_async_variants_answer_like_the_blocking_ones(tmp_path, clock):
    async def main():
        with passcode.Store(str(tmp_path / "a.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
            await s.set_passcode_async(PC1)
            with pytest.raises(passcode.WrongPasscode):
                await s.verify_async(PC2)
            assert s.failed_attempts == 1
            await s.verify_async(PC1)
            key = await s.unlock_key_async(PC1)
            assert len(key) == passcode.KEY_BYTES
            await s.authorize_async(PC1)
            await s.change_async(PC1, PC2)
            with pytest.raises(passcode.WrongPasscode):
                await s.disable_async(PC1)
            await s.disable_async(PC2)
            assert not s.is_enabled
            await s.remove_async(PC2)
            assert not s.is_set
    asyncio.run(main())


def test_a_flow_digit_async_submits(tmp_path, clock):
    async def main():
        with passcode.Store(str(tmp_path / "f.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
            s.set_passcode(PC1)
            s.report(passcode.Event.LOCK_NOW)
            assert s.locked
            with s.flow(passcode.FlowKind.UNLOCK) as f:
                for ch in PC1:
                    await f.digit_async(int(ch))
                assert f.step == passcode.FlowStep.FINISHED
                assert f.result == passcode.FlowResult.SUCCESS
            assert not s.locked
    asyncio.run(main())


class _Verify:
    """Marks where one thread's store.verify is: `started` when the library calls the store's
    clock (its first step, before Argon2id), `returned` when the call comes back to Python (the
    binding's errcheck, wrapped here, is the first Python code that runs after the C call)."""

    def __init__(self):
        self.started, self.returned = threading.Event(), threading.Event()
        self._fn = passcode._ffi.lib.passcode_verify
        self._errcheck = self._fn.errcheck

    def clock(self):
        self.started.set()
        return 1_000_000, 1_700_000_000_000, 5

    def __enter__(self):
        def on_return(result, func, args):
            self.returned.set()
            return self._errcheck(result, func, args)
        self._fn.errcheck = on_return
        return self

    def __exit__(self, *exc):
        self._fn.errcheck = self._errcheck

    def inside(self):
        """Whether, at this moment, another thread is inside the C call: the library has called
        the clock and the callback has returned (no Python frame above the binding's call), and
        the call has not come back. Python code that sees this runs while the verify holds no
        GIL: a thread holding it through the call runs Python only in the clock callback or
        after the call, never here."""
        me = threading.get_ident()
        return (self.started.is_set() and not self.returned.is_set()
                and any(f.f_code.co_name == "_call_with_secrets"
                        for tid, f in sys._current_frames().items() if tid != me))


@pytest.mark.embedded_only(ONLY_COST)
def test_the_event_loop_runs_while_argon2id_does(tmp_path):
    """An asyncio task runs while verify_async is inside Argon2id: the loop is not blocked."""
    with _Verify() as v, passcode.Store(str(tmp_path / "l.db"), clock=v.clock, **SLOW) as s:
        s.set_passcode(PC1)
        v.started.clear()

        async def main():
            ticked_inside = False

            async def ticker():
                nonlocal ticked_inside
                while not v.returned.is_set():
                    if v.inside():
                        ticked_inside = True
                        return
                    await asyncio.sleep(0.001)

            task = asyncio.ensure_future(ticker())
            await s.verify_async(PC1)
            await task
            return ticked_inside
        assert asyncio.run(main()), "the loop's task never ran while verify_async was inside the library"


@pytest.mark.embedded_only(ONLY_COST)
def test_verify_releases_the_gil(tmp_path):
    """While one thread is inside passcode_verify, Python code in another runs: the other thread
    sees the verify inside the C call (after the clock callback, before the call came back)."""
    with _Verify() as v, passcode.Store(str(tmp_path / "g.db"), clock=v.clock, **SLOW) as s:
        s.set_passcode(PC1)
        v.started.clear()
        seen = threading.Event()

        def watcher():
            while not v.returned.is_set():
                if v.inside():
                    seen.set()
                    return
                time.sleep(0.0001)

        t = threading.Thread(target=watcher)
        t.start()
        s.verify(PC1)
        t.join()
        assert v.started.is_set() and v.returned.is_set()
        assert seen.is_set(), "no Python code ran in another thread while verify was inside the library"
