"""The package's face: the public names stay what Tests/python/public_names.txt lists, however the
modules behind them are arranged, and each asyncio twin is its blocking call's own (same
parameters, a coroutine, named and documented after it)."""
import asyncio
import inspect
import os

import passcode

HERE = os.path.dirname(os.path.abspath(__file__))


def test_public_names_are_the_listed_ones():
    with open(os.path.join(HERE, "public_names.txt"), encoding="utf-8") as f:
        listed = [line.strip() for line in f if line.strip()]
    assert sorted(passcode.__all__) == listed, "a public name came or went: update public_names.txt on purpose"
    for name in passcode.__all__:
        assert hasattr(passcode, name), name
    for cls in (passcode.Store, passcode.Flow, passcode.LockScreen, passcode.LoggedEvent, passcode.Session):
        assert cls.__module__ == "passcode", cls


def test_the_package_shows_its_public_names_only():
    """dir(passcode): the names of __all__ and the package's own modules, nothing imported for its
    own use (typing's Any, Optional, ...; the argument aliases)."""
    shown = [name for name in dir(passcode) if not name.startswith("_")]
    others = [name for name in shown if name not in passcode.__all__
              and not (inspect.ismodule(getattr(passcode, name)) and getattr(passcode, name).__name__ == "passcode." + name)]
    assert others == []
    assert {"WrongPasscode", "LockedOut", "ServiceUnavailable"} <= set(passcode.__all__)


def twins(cls):
    return {name: getattr(cls, name) for name in dir(cls) if name.endswith("_async")}


def test_every_async_twin_has_its_blocking_calls_signature_and_doc():
    store_twins, flow_twins = twins(passcode.Store), twins(passcode.Flow)
    assert sorted(store_twins) == ["authorize_async", "change_async", "complete_reset_async", "disable_async",
                                   "remove_async", "remove_store_async", "set_passcode_async", "unlock_key_async",
                                   "user_change_async", "user_remove_async", "user_set_passcode_async", "user_verify_async",
                                   "verify_async"]
    assert sorted(flow_twins) == ["digit_async"]
    for cls, found in ((passcode.Store, store_twins), (passcode.Flow, flow_twins)):
        for name, twin in found.items():
            blocking = getattr(cls, name[: -len("_async")])
            assert inspect.iscoroutinefunction(twin), name
            assert twin.__name__ == name and twin.__qualname__ == blocking.__qualname__ + "_async"
            assert inspect.signature(twin) == inspect.signature(blocking), name
            assert blocking.__doc__ and inspect.cleandoc(blocking.__doc__) in twin.__doc__, name


def test_a_twin_passes_keyword_arguments_and_raises_what_the_call_raises(tmp_path, clock):
    async def main():
        with passcode.Store(str(tmp_path / "s.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
            await s.set_passcode_async(digits="386491")
            try:
                await s.change_async(current="000000", new="915372")
            except passcode.WrongPasscode:
                pass
            else:
                raise AssertionError("a wrong passcode changed it")
            await s.change_async("386491", new="915372")
            s.verify("915372")
    asyncio.run(main())
