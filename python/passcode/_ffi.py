"""The C functions of libpasscode, each declared once with argtypes and restype.

Modelled on python-libarchive-c's ffi.py: the library is found from $PASSCODE_LIBRARY, else a
copy bundled in a wheel (passcode/libpasscode.so.0), else the soname through the dynamic loader,
else the LIBDIR `make install` recorded in this binding, else the build folder of a source
checkout (_candidates).
Tests/python/test_ffi_table.py checks FUNCTIONS against include/passcode.h, so the two cannot
drift apart.
"""
import ctypes
import ctypes.util
import os
from typing import Any, Dict, Iterator, Optional, Tuple
from ctypes import (CFUNCTYPE, POINTER, c_char_p, c_int32, c_int64, c_size_t, c_uint8,
                    c_uint32, c_uint64, c_void_p)

from ._version import __version__

#: The library version this binding was written for: (major, minor). A library with another
#: major version, or an older minor one, is refused at import.
EXPECTED_VERSION = tuple(int(n) for n in __version__.split(".")[:2])


class _Opaque(ctypes.Structure):
    pass


class store_t(_Opaque):
    """struct passcode_store"""


class options_t(_Opaque):
    """struct passcode_options"""


class flow_t(_Opaque):
    """struct passcode_flow"""


class session_list_t(_Opaque):
    """struct passcode_session_list"""


class event_log_t(_Opaque):
    """struct passcode_event_log"""


class lock_screen_t(ctypes.Structure):
    """struct passcode_lock_screen (Sources/Passcode/Types/types.h), in the header's field order."""
    _fields_ = [("size", c_size_t), ("locked", c_int32), ("reason", c_int32), ("lockout_seconds", c_int64),
                ("failed_attempts", c_int32), ("reset_required", c_int32), ("biometric_refusal", c_int32),
                ("biometric_lead", c_int32), ("biometric_kind", c_int32), ("passcode_set", c_int32),
                ("lock_enabled", c_int32), ("security_label", c_void_p)]


STORE = POINTER(store_t)
EVENT_LOG = POINTER(event_log_t)
OPTIONS = POINTER(options_t)
FLOW = POINTER(flow_t)
SESSION_LIST = POINTER(session_list_t)
i32p = POINTER(c_int32)
i64p = POINTER(c_int64)
strp = POINTER(c_char_p)
u8p = POINTER(c_uint8)

CLOCK_CB = CFUNCTYPE(None, c_void_p, i64p, i64p, POINTER(c_uint64))
VOID_CB = CFUNCTYPE(None, c_void_p)
INT_CB = CFUNCTYPE(None, c_void_p, c_int32)
DELIVERY_CB = CFUNCTYPE(c_int32, c_void_p, c_void_p, c_size_t, c_void_p, c_size_t)
SETTINGS_CB = CFUNCTYPE(c_int32, c_void_p, c_char_p, c_char_p, c_char_p, c_void_p, c_size_t)
SESSION_CB = CFUNCTYPE(c_int32, c_void_p, c_char_p, c_void_p, c_size_t)
LIFECYCLE_CB = CFUNCTYPE(c_int32, c_void_p, c_int32, c_void_p, c_size_t)

#: name: (restype, argtypes)
FUNCTIONS = {
    "passcode_version_number": (c_uint32, []),
    "passcode_version_string": (c_char_p, []),
    "passcode_strerror": (c_char_p, [c_int32]),
    "passcode_options_new": (c_int32, [POINTER(OPTIONS)]),
    "passcode_options_free": (None, [OPTIONS]),
    "passcode_options_set_cost": (c_int32, [OPTIONS, c_int32]),
    "passcode_options_set_cost_explicit": (c_int32, [OPTIONS, c_uint64, c_size_t]),
    "passcode_options_set_pepper": (c_int32, [OPTIONS, POINTER(c_uint8), c_size_t]),
    "passcode_options_set_allow_weak": (c_int32, [OPTIONS, c_int32]),
    "passcode_options_set_session_keyring": (c_int32, [OPTIONS, c_int32]),
    "passcode_options_set_tpm": (c_int32, [OPTIONS, c_char_p]),
    "passcode_options_set_tpm_owner_auth_file": (c_int32, [OPTIONS, c_char_p]),
    "passcode_options_set_clock": (c_int32, [OPTIONS, CLOCK_CB, c_void_p]),
    "passcode_options_set_busy_timeout": (c_int32, [OPTIONS, c_int32]),
    "passcode_options_set_service": (c_int32, [OPTIONS, c_char_p]),
    "passcode_open": (c_int32, [c_char_p, OPTIONS, POINTER(STORE)]),
    "passcode_close": (None, [STORE]),
    "passcode_store_remove": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_errmsg": (c_char_p, [STORE]),
    "passcode_errwait": (c_int64, [STORE]),
    "passcode_set": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_verify": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_authorize": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_change": (c_int32, [STORE, c_char_p, c_size_t, c_char_p, c_size_t]),
    "passcode_disable": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_enable": (c_int32, [STORE]),
    "passcode_remove": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_is_set": (c_int32, [STORE, i32p]),
    "passcode_is_enabled": (c_int32, [STORE, i32p]),
    "passcode_length": (c_int32, [STORE, i32p]),
    "passcode_set_length": (c_int32, [STORE, c_int32]),
    "passcode_failed_attempts": (c_int32, [STORE, i32p]),
    "passcode_lockout_remaining": (c_int32, [STORE, i64p]),
    "passcode_is_reset_required": (c_int32, [STORE, i32p]),
    "passcode_setting_get": (c_int32, [STORE, c_int32, i64p]),
    "passcode_setting_set": (c_int32, [STORE, c_int32, c_int64]),
    "passcode_setting_bounds": (c_int32, [c_int32, i64p, i64p]),
    "passcode_setting_choices": (c_int32, [c_int32, i64p, c_size_t, POINTER(c_size_t)]),
    "passcode_setting_default": (c_int32, [c_int32, i64p]),
    "passcode_setting_name": (c_char_p, [c_int32]),
    "passcode_setting_weakens": (c_int32, [c_int32, c_int64, c_int64, i32p]),
    "passcode_set_custom_schedule": (c_int32, [STORE, POINTER(c_uint32), c_size_t, c_uint32]),
    "passcode_event_report": (c_int32, [STORE, c_int32, i32p]),
    "passcode_lock_state": (c_int32, [STORE, i32p, i32p]),
    "passcode_lock_screen_read": (c_int32, [STORE, POINTER(lock_screen_t)]),
    "passcode_biometric_set_available": (c_int32, [STORE, c_int32, c_int32]),
    "passcode_security_label": (c_int32, [STORE, strp]),
    "passcode_biometric_check": (c_int32, [STORE, i32p]),
    "passcode_biometric_lead": (c_int32, [STORE, i32p]),
    "passcode_biometric_unlock": (c_int32, [STORE, i32p]),
    "passcode_biometric_failed": (c_int32, [STORE, i32p]),
    "passcode_flow_new": (c_int32, [STORE, c_int32, POINTER(FLOW)]),
    "passcode_flow_free": (None, [FLOW]),
    "passcode_flow_digit": (c_int32, [FLOW, c_int32]),
    "passcode_flow_delete": (c_int32, [FLOW]),
    "passcode_flow_cancel": (c_int32, [FLOW]),
    "passcode_flow_refresh": (c_int32, [FLOW]),
    "passcode_flow_state": (c_int32, [FLOW, i32p, i32p]),
    "passcode_flow_dots": (c_int32, [FLOW, i32p, i32p]),
    "passcode_flow_prompt": (c_int32, [FLOW, strp]),
    "passcode_flow_error": (c_int32, [FLOW, strp, i32p]),
    "passcode_flow_shakes": (c_int32, [FLOW, i32p]),
    "passcode_flow_lockout_remaining": (c_int32, [FLOW, i64p]),
    "passcode_reset_request": (c_int32, [STORE]),
    "passcode_reset_retry_after": (c_int32, [STORE, i64p]),
    "passcode_reset_check": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_reset_complete": (c_int32, [STORE, c_char_p, c_size_t, c_char_p, c_size_t]),
    "passcode_reset_complete_with_recovery_key": (c_int32, [STORE, c_char_p, c_size_t, c_char_p, c_size_t, u8p, c_size_t]),
    "passcode_key_bytes": (c_size_t, []),
    "passcode_unlock_key": (c_int32, [STORE, c_char_p, c_size_t, u8p, c_size_t]),
    "passcode_biometric_unlock_key": (c_int32, [STORE, u8p, c_size_t, i32p]),
    "passcode_flow_take_key": (c_int32, [FLOW, u8p, c_size_t]),
    "passcode_seal_overhead": (c_size_t, []),
    "passcode_seal": (c_int32, [STORE, u8p, c_size_t, u8p, c_size_t, POINTER(c_size_t)]),
    "passcode_unseal": (c_int32, [STORE, u8p, c_size_t, u8p, c_size_t, POINTER(c_size_t)]),
    "passcode_set_recovery_key": (c_int32, [STORE, u8p, c_size_t]),
    "passcode_clear_recovery_key": (c_int32, [STORE]),
    "passcode_has_recovery_key": (c_int32, [STORE, i32p]),
    "passcode_reset_pending": (c_int32, [STORE, i32p]),
    "passcode_forgot": (c_int32, [STORE]),
    "passcode_password_change_check": (c_int32, [STORE, c_char_p, c_size_t, c_char_p, c_size_t, c_char_p, c_size_t]),
    "passcode_session_record": (c_int32, [STORE, c_char_p, c_char_p, c_char_p, c_int64, c_char_p, c_int32]),
    "passcode_session_list_new": (c_int32, [STORE, POINTER(SESSION_LIST)]),
    "passcode_session_list_count": (c_size_t, [SESSION_LIST]),
    "passcode_session_list_get": (c_int32, [SESSION_LIST, c_size_t, strp, strp, strp, i64p, strp, i32p]),
    "passcode_session_list_free": (None, [SESSION_LIST]),
    "passcode_event_log_new": (c_int32, [STORE, POINTER(EVENT_LOG)]),
    "passcode_event_log_count": (c_size_t, [EVENT_LOG]),
    "passcode_event_log_get": (c_int32, [EVENT_LOG, c_size_t, i32p, i64p, strp]),
    "passcode_event_log_kind_name": (c_char_p, [c_int32]),
    "passcode_event_log_free": (None, [EVENT_LOG]),
    "passcode_failure_summary": (c_int32, [STORE, i32p, i64p]),
    "passcode_set_session_hook": (c_int32, [STORE, SESSION_CB, c_void_p]),
    "passcode_session_sign_out": (c_int32, [STORE, c_char_p]),
    "passcode_session_sign_out_others": (c_int32, [STORE, i32p]),
    "passcode_set_account_deleted_callback": (c_int32, [STORE, VOID_CB, c_void_p]),
    "passcode_delete_account": (c_int32, [STORE, c_char_p]),
    "passcode_set_logout_callback": (c_int32, [STORE, INT_CB, c_void_p]),
    "passcode_set_reset_delivery_callback": (c_int32, [STORE, DELIVERY_CB, c_void_p]),
    "passcode_set_notice_callback": (c_int32, [STORE, INT_CB, c_void_p]),
    "passcode_set_lifecycle_callback": (c_int32, [STORE, LIFECYCLE_CB, c_void_p]),
    "passcode_set_settings_hook": (c_int32, [STORE, SETTINGS_CB, c_void_p]),
    "passcode_tpm_bind": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_tpm_unbind": (c_int32, [STORE, c_char_p, c_size_t]),
    "passcode_tpm_is_bound": (c_int32, [STORE, i32p]),
    "passcode_tpm_posture": (c_int32, [STORE, c_int32, i64p]),
}


#: The store each live flow belongs to (by the flow handle's address): a flow's failures are
#: reported on its store (passcode_errmsg(store)).
FLOW_STORES: Dict[Optional[int], Any] = {}


def _address(handle: Any) -> Optional[int]:
    return ctypes.cast(handle, c_void_p).value


def check_status(result: int, func: Any, args: Tuple[Any, ...]) -> int:
    """The errcheck of every function that returns a passcode_status (as python-libarchive-c's
    check_int): a non-zero status raises the exception of its class, with the library's message
    and, for a lockout or a rate limit, the seconds the failure carried."""
    if result == 0:
        return result
    from ._errors import error_for
    from ._enums import Status
    first = args[0] if args else None
    store = None
    if isinstance(first, STORE):
        store = first
    elif isinstance(first, FLOW):
        store = FLOW_STORES.get(_address(first))
    if store is not None:
        message = lib.passcode_errmsg(store)
        wait = lib.passcode_errwait(store)
    elif isinstance(first, (OPTIONS, SESSION_LIST, EVENT_LOG)):
        message, wait = lib.passcode_strerror(result), 0
    else:  # passcode_open and the calls about a setting itself
        message, wait = lib.passcode_errmsg(None), 0
    extra = {"seconds_remaining": wait} if result in (Status.ERR_LOCKED_OUT, Status.ERR_RATE_LIMITED, Status.ERR_TPM_LOCKOUT) else {}
    raise error_for(result, (message or lib.passcode_strerror(result) or b"").decode(), **extra)


#: The library's soname: what the dynamic loader, a wheel's bundled copy and an install are named.
SONAME = "libpasscode.so.0"

#: The file in which `make install` records the LIBDIR it installed to (one line), next to this
#: module; `pip install ./python` after `make install` carries it into the installed binding.
INSTALLED_LIBDIR_FILE = "_installed_libdir"


def _candidates() -> Iterator[str]:
    """Where libpasscode is looked for, in this order (the same everywhere, README "Python"):
    $PASSCODE_LIBRARY (alone, when set); the copy bundled in a wheel next to this file; the
    soname through the dynamic loader (ldconfig's cache, LD_LIBRARY_PATH,
    ctypes.util.find_library); the LIBDIR `make install` recorded in this binding; last, the
    build folder of the source checkout this binding lies in."""
    env = os.environ.get("PASSCODE_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, SONAME)
    if os.path.exists(bundled):
        yield bundled
    yield SONAME
    found = ctypes.util.find_library("passcode")
    if found and found != SONAME:
        yield found
    try:
        with open(os.path.join(here, INSTALLED_LIBDIR_FILE), encoding="utf-8") as f:
            libdir = f.read().strip()
        if libdir:
            yield os.path.join(libdir, SONAME)
    except OSError:
        pass
    checkout = os.path.normpath(os.path.join(here, "..", "..", "build", SONAME))
    if os.path.exists(checkout):
        yield checkout


def load() -> Any:
    """Loads libpasscode and declares every function. Raises ImportError with the places tried."""
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            tried.append(f"{path}: {e}")
    else:
        raise ImportError("libpasscode not found: install it (make install, then ldconfig as root) or set "
                          "PASSCODE_LIBRARY to the path of libpasscode.so.0 (tried: " + "; ".join(tried) + ")")
    for name, (restype, argtypes) in FUNCTIONS.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
        if restype is c_int32:  # every int32_t result is a passcode_status
            fn.errcheck = check_status
    number = lib.passcode_version_number()
    major, minor = number // 10000, number // 100 % 100
    if major != EXPECTED_VERSION[0] or minor < EXPECTED_VERSION[1]:
        raise ImportError(f"libpasscode {lib.passcode_version_string().decode()} at {path} does not fit this "
                          f"binding (needs {EXPECTED_VERSION[0]}.{EXPECTED_VERSION[1]} or a later {EXPECTED_VERSION[0]}.x)")
    return lib


lib = load()


def fast(name: str) -> Any:
    """A second function object for `name` without argtypes and errcheck, for the queries a
    screen polls: ctypes then neither converts the arguments in Python nor calls a Python
    errcheck, which is most of a call's cost. The caller passes exactly the declared types
    (FUNCTIONS) and raises with `check_status` itself on a non-zero status."""
    restype, argtypes = FUNCTIONS[name]
    fn = lib._FuncPtr((name, lib))
    fn.restype = restype
    return fn
