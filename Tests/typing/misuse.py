"""Calls the type hints must reject (Tests/typing/run.sh expects mypy to fail on each line
marked `# E:` with that error code)."""
import passcode
from passcode import Setting

store = passcode.Store("x.db")
store.verify(386491)  # E: arg-type
store.set_setting(Setting.AUTO_LOCK_SECONDS, "60")  # E: arg-type
n: str = store.failed_attempts  # E: assignment
store.user_state("1000")  # E: arg-type
locked: str = store.user_state(1000).lockout_seconds  # E: assignment
store.user_verify(1000, 386491)  # E: arg-type


def deliver(code: str, attempt: int) -> None: ...


store.on_reset_code(deliver)  # E: arg-type


async def twins() -> None:
    await store.verify_async(386491)  # E: arg-type
    k: str = await store.unlock_key_async("386491")  # E: assignment
