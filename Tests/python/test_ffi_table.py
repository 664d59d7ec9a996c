"""The binding's ctypes table and enums against include/passcode.h, so they cannot drift apart."""
import ctypes
import os
import re

import passcode
from passcode import _enums, _ffi

from conftest import ROOT

HEADER = open(os.path.join(ROOT, "include", "passcode.h")).read()

C_TO_CTYPES = {
    "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64, "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64, "size_t": ctypes.c_size_t, "void": None,
    "const char *": ctypes.c_char_p, "char *": ctypes.c_char_p, "void *": ctypes.c_void_p,
    "int32_t *": ctypes.POINTER(ctypes.c_int32), "int64_t *": ctypes.POINTER(ctypes.c_int64),
    "const char **": ctypes.POINTER(ctypes.c_char_p), "const uint8_t *": ctypes.POINTER(ctypes.c_uint8), "uint8_t *": ctypes.POINTER(ctypes.c_uint8),
    "const uint32_t *": ctypes.POINTER(ctypes.c_uint32), "uint32_t *": ctypes.POINTER(ctypes.c_uint32),
    "size_t *": ctypes.POINTER(ctypes.c_size_t),
    "passcode_store *": _ffi.STORE, "passcode_options *": _ffi.OPTIONS, "passcode_flow *": _ffi.FLOW,
    "passcode_session_list *": _ffi.SESSION_LIST, "passcode_event_log *": _ffi.EVENT_LOG,
    "passcode_event_log **": ctypes.POINTER(_ffi.EVENT_LOG),
    "passcode_store **": ctypes.POINTER(_ffi.STORE), "passcode_options **": ctypes.POINTER(_ffi.OPTIONS),
    "passcode_flow **": ctypes.POINTER(_ffi.FLOW), "passcode_session_list **": ctypes.POINTER(_ffi.SESSION_LIST),
    "passcode_lock_screen *": ctypes.POINTER(_ffi.lock_screen_t),
}

# The header's enums (a status returned, an enum taken by value) are 32-bit ints in the ABI.
C_TO_CTYPES.update({name: ctypes.c_int32 for name in re.findall(r"^typedef enum (passcode_\w+)", HEADER, re.M)})


def header_functions():
    out = {}
    for m in re.finditer(r"^([a-z][\w ]*?\s*\**)\s*(passcode_\w+)\((.*)\);$", HEADER, re.M):
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3)
        parts, depth, cur = [], 0, ""
        for ch in params:
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                parts.append(cur.strip())
                cur = ""
            else:
                cur += ch
        parts.append(cur.strip())
        if parts == ["void"]:
            parts = []
        out[name] = (ret, parts)
    return out


def param_type(p):
    if "(*" in p:
        return "callback"
    m = re.match(r"(.*?)(\w+)$", p)
    return re.sub(r"\s*\*", " *", m.group(1).strip()).replace("* *", "**").strip()


def test_every_header_function_is_declared_once_with_matching_types():
    funcs = header_functions()
    assert len(funcs) >= 60
    assert set(funcs) == set(_ffi.FUNCTIONS), set(funcs) ^ set(_ffi.FUNCTIONS)
    for name, (ret, params) in funcs.items():
        restype, argtypes = _ffi.FUNCTIONS[name]
        assert C_TO_CTYPES[ret.replace(" *", " *")] is restype, name
        assert len(params) == len(argtypes), name
        for p, a in zip(params, argtypes):
            t = param_type(p)
            if t == "callback":
                assert issubclass(a, ctypes._CFuncPtr), (name, p)
                ret_c = p.split("(*")[0].strip()
                assert (a._restype_ is None) == (ret_c == "void"), (name, p)
                assert len(a._argtypes_) == len(p.split("(*")[1].split(")(")[1].rstrip(")").split(",")), (name, p)
            else:
                assert C_TO_CTYPES[t] is a, (name, p, a)


def test_every_header_enum_value_matches():
    for cname, (enum, prefix) in _enums.HEADER_ENUMS.items():
        body = re.search(r"typedef enum " + cname + r" \{(.*?)\} " + cname + ";", HEADER, re.S).group(1)
        consts = dict(re.findall(r"(PASSCODE_\w+) = (\d+)", body))
        assert {prefix + m.name: str(m.value) for m in enum} == consts, cname


def test_python_enums_are_generated_from_the_header():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen", os.path.join(ROOT, "scripts", "gen_python_enums.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(os.path.join(ROOT, "python", "passcode", "_enums.py")) as f:
        assert f.read() == gen.module(HEADER), "run `make header`"


def test_every_header_enum_has_a_python_enum():
    names = set(re.findall(r"typedef enum (passcode_\w+) \{", HEADER))
    assert names == set(_enums.HEADER_ENUMS), names ^ set(_enums.HEADER_ENUMS)


def test_version_matches_the_header():
    number = int(re.search(r"#define PASSCODE_VERSION_MINOR (\d+)", HEADER).group(1))
    assert passcode.version().split(".")[1] == str(number)
    assert _ffi.lib.passcode_version_number() // 100 % 100 == number


def test_the_lock_screen_struct_matches_the_header():
    body = re.search(r"typedef struct passcode_lock_screen \{(.*?)\} passcode_lock_screen;", HEADER, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    fields = re.findall(r"^\s*(.+?)\s*\b(\w+);$", body, re.M)
    c_types = {"const char *": ctypes.c_void_p}  # the label is read as an address (a static string)
    assert [(n, c_types.get(t) or C_TO_CTYPES[t]) for t, n in fields] == [(n, t) for n, t in _ffi.lock_screen_t._fields_]
