"""The calls that run Argon2id release the GIL (ctypes does) and have asyncio variants."""
import asyncio
import threading
import time

import pytest

import passcode
from conftest import PC1, PC2, ONLY_COST

# Costly enough that a call lasts far longer than the interpreter's switch interval (5 ms).
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


@pytest.mark.embedded_only(ONLY_COST)
def test_the_event_loop_runs_while_argon2id_does(tmp_path):
    """An asyncio task keeps ticking during verify_async: the loop is not blocked."""
    with passcode.Store(str(tmp_path / "l.db"), **SLOW) as s:
        s.set_passcode(PC1)

        async def main():
            ticks = 0
            stop = asyncio.Event()

            async def ticker():
                nonlocal ticks
                while not stop.is_set():
                    ticks += 1
                    await asyncio.sleep(0.005)

            task = asyncio.ensure_future(ticker())
            start = time.monotonic()
            await s.verify_async(PC1)
            took = time.monotonic() - start
            stop.set()
            await task
            return ticks, took
        ticks, took = asyncio.run(main())
        # Blocked, the ticker would run once; free, it runs about every 5 ms of the call.
        assert ticks >= max(3, int(took / 0.005) // 4), (ticks, took)


@pytest.mark.embedded_only(ONLY_COST)
def test_verify_releases_the_gil(tmp_path):
    """While one thread is inside passcode_verify, Python code in another runs on: the longest
    pause the main thread sees is a small part of the call (holding the GIL, it would be all)."""
    with passcode.Store(str(tmp_path / "g.db"), **SLOW) as s:
        s.set_passcode(PC1)
        done = threading.Event()
        span = {}

        def worker():
            span["start"] = time.monotonic()
            s.verify(PC1)
            span["end"] = time.monotonic()
            done.set()

        t = threading.Thread(target=worker)
        stamps = []
        t.start()
        while not done.is_set():
            stamps.append(time.monotonic())
        t.join()
        inside = [x for x in stamps if span["start"] <= x <= span["end"]]
        call = span["end"] - span["start"]
        edges = [span["start"]] + inside + [span["end"]]
        gaps = [b - a for a, b in zip(edges, edges[1:])]
        assert inside and gaps, "the main thread never ran during the call"
        assert max(gaps) < call / 3, (max(gaps), call)
