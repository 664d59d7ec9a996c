"""The asyncio twins of the calls that block (they run Argon2id, ~0.1 s): each `name_async` is made
from `name` by `twin`, with its signature, so the two cannot drift apart, and runs it in the
event loop's default executor. ctypes releases the GIL for the C call, so the loop, and other
threads, go on meanwhile."""
from __future__ import annotations

import asyncio
import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable, Coroutine, TypeVar

if TYPE_CHECKING:
    from typing_extensions import Concatenate, ParamSpec

    _P = ParamSpec("_P")

_S = TypeVar("_S")
_T = TypeVar("_T")


def twin(method: Callable[Concatenate[_S, _P], _T]) -> Callable[Concatenate[_S, _P], Coroutine[Any, Any, _T]]:
    """The coroutine method `<name>_async` that runs `method` (a blocking one) in the running loop's
    default executor, with the same arguments, result and exceptions. In a class body:
    `verify_async = twin(verify)`."""
    name = method.__name__ + "_async"

    async def run(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        return await asyncio.get_running_loop().run_in_executor(None, functools.partial(method, self, *args, **kwargs))

    functools.update_wrapper(run, method)
    run.__name__ = name
    run.__qualname__ = method.__qualname__ + "_async"
    # inspect.cleandoc: the blocking method's docstring keeps its source indentation after the first
    # line; pasted under another first line as it is, help() showed it shifted to the right.
    run.__doc__ = (f"`{method.__name__}` without blocking the event loop (it runs in the loop's executor).\n\n"
                   + inspect.cleandoc(method.__doc__ or ""))
    return run
