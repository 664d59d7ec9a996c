"""What a user of the binding writes, checked with `mypy --strict` (Tests/typing/run.sh) and
run: the types the package declares must describe what it does."""
import asyncio
import os
import sys
import tempfile
from typing import List, Optional, Tuple

import passcode
from passcode import FlowKind, FlowResult, FlowStep, LoggedEvent, Setting


def unlock_with_a_flow(store: passcode.Store, digits: str) -> Tuple[FlowResult, str]:
    with store.flow(FlowKind.UNLOCK) as flow:
        for d in digits:
            flow.digit(int(d))
        assert flow.step == FlowStep.FINISHED
        return flow.result, flow.error


async def verify_twice(a: passcode.Store, b: passcode.Store, code: str) -> None:
    await asyncio.gather(a.verify_async(code), b.verify_async(code))


def main() -> int:
    folder = tempfile.mkdtemp()
    stores: List[passcode.Store] = []
    for name in ("a.db", "b.db"):
        s = passcode.Store(os.path.join(folder, name), cost=passcode.Cost.INTERACTIVE)
        s.set_passcode("386491")
        stores.append(s)
    a, b = stores
    try:
        a.verify("000000")
    except passcode.WrongPasscode as e:
        status: passcode.Status = e.status
        print("wrong:", e.message, status.name)
    result, error = unlock_with_a_flow(a, "386491")
    assert result == FlowResult.SUCCESS, error
    asyncio.run(verify_twice(a, b, "386491"))
    timeout: int = a.get_setting(Setting.AUTO_LOCK_SECONDS)
    low, high = passcode.setting_bounds(Setting.AUTO_LOCK_SECONDS)
    assert low <= timeout <= high
    events: List[LoggedEvent] = a.events()
    last: Optional[int] = a.last_failure_ms
    key: bytearray = a.unlock_key("386491")
    sealed: bytes = a.seal(b"note")
    assert bytes(a.unseal(sealed)) == b"note"
    passcode.wipe(key)
    try:  # a user named by uid: passcoded's (service mode) to answer
        state: passcode.UserState = a.user_state(os.getuid())
        print("user state:", state.is_set, state.failures, state.lockout_seconds)
    except passcode.NotInServiceMode as e:
        print("user state:", e.message)
    print("events:", len(events), "last failure:", last is not None, "version:", passcode.__version__)
    for s in stores:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
