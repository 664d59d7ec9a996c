#!/usr/bin/env python3
"""Every exported function is covered three ways, or says why not (`make check-coverage`):

  (a) the bad-input catalogue (Tests/c/test_catalogue.c) calls it;
  (b) the Python binding (python/passcode) has a method that calls it, or C_ONLY below says why
      a Python program never needs it;
  (c) a service-mode run calls it: the service tests (Tests/service/*.c and *.py) call it from C
      or through ctypes, or call a binding method that calls it; or EMBEDDED_ONLY below says
      why no back end but the embedded one has anything to run.

Plain Python: no build, no root, no bus. Each failure names the function and what it lacks; the
exit status is 1 when one does. `--list` prints each function's coverage.

exported_functions() is the one place the list of functions comes from: the one model of the
C API, scripts/api_model.py.
"""
import argparse
import glob
import os
import re
import sys
from typing import Dict, Iterable, List, Set

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

#: Functions no Python method calls, each with the reason a Python program never needs it.
C_ONLY: Dict[str, str] = {
    "passcode_setting_name": "the binding's Setting enum (generated from the header) names each setting",
    "passcode_event_log_kind_name": "the binding's SecurityEvent enum (generated from the header) names each log kind",
}

#: Functions no service-mode run calls, each with the reason there is nothing to run there.
EMBEDDED_ONLY: Dict[str, str] = {
    "passcode_version_number": "no store: the library's own version, the same whatever back end a handle uses",
    "passcode_version_string": "no store: the library's own version, the same whatever back end a handle uses",
    "passcode_key_bytes": "no store: a constant of the library",
    "passcode_setting_bounds": "no store: a setting's rule, answered by the library from its own table",
    "passcode_setting_choices": "no store: a setting's rule, answered by the library from its own table",
    "passcode_setting_weakens": "no store: a setting's rule, answered by the library from its own table",
    "passcode_setting_name": "no store: a setting's name, answered by the library from its own table",
    "passcode_message_of": "no store: another enum's value to its message, answered by the library from its own "
                           "table, the same whatever back end a handle uses",
    "passcode_options_set_session_keyring": "the host's session keyring: passcoded keeps the key itself, and the "
                                            "option is for an embedded store (docs/hacking.md, both back ends)",
}


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def exported_functions(root: str = ROOT) -> List[str]:
    """The functions the library exports, in the header's order: the one model of the C API
    (scripts/api_model.py) read from `root`'s include/passcode.h."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import api_model
    finally:
        sys.path.pop(0)
    return [f.name for f in api_model.load(os.path.join(root, "include", "passcode.h")).functions]


def _called(name: str, text: str) -> bool:
    """Whether code (comments already removed) names the function: a C call, a ctypes lookup
    (lib.name), or the name as a string (_ffi.fast("name"))."""
    return re.search(r"(?<![\w.])" + re.escape(name) + r"\s*\(|\.\s*" + re.escape(name) + r"\b|[\"']"
                     + re.escape(name) + r"[\"']", text) is not None


def _code(path: str) -> str:
    """A source file without its comments (C's, or Python's and its docstrings), so that a
    function named only in a comment is not taken for a call."""
    text = _read(path)
    if path.endswith((".c", ".h")):
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        return re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    return re.sub(r"#[^\n]*", "", text)


def _binding_sources(root: str) -> Dict[str, str]:
    """The binding's modules, _ffi.py without its table of declarations (a declaration is not a
    call)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "python", "passcode", "*.py"))):
        text = _code(path)
        if os.path.basename(path) == "_ffi.py":
            text = re.sub(r"^FUNCTIONS = \{.*?^\}", "", text, flags=re.S | re.M)
        out[path] = text
    return out


def _methods_calling(name: str, sources: Dict[str, str]) -> Set[str]:
    """The binding's functions, methods and properties whose body calls `name`, and the asyncio
    twins made from them (verify_async = twin(verify))."""
    found: Set[str] = set()
    for text in sources.values():
        defs = list(re.finditer(r"^[ \t]*def (\w+)\(", text, flags=re.M))
        for i, d in enumerate(defs):
            body = text[d.end():defs[i + 1].start() if i + 1 < len(defs) else len(text)]
            if _called(name, body):
                found.add(d.group(1))
        for twin in re.finditer(r"^[ \t]*(\w+) = twin\((\w+)\)", text, flags=re.M):
            if twin.group(2) in found:
                found.add(twin.group(1))
    return found


def check(root: str = ROOT, functions: Iterable[str] = ()) -> List[str]:
    functions = list(functions) or exported_functions(root)
    problems: List[str] = []
    catalogue = _code(os.path.join(root, "Tests", "c", "test_catalogue.c"))
    binding = _binding_sources(root)
    binding_text = "\n".join(binding.values())
    service = "\n".join(_code(p) for p in sorted(glob.glob(os.path.join(root, "Tests", "service", "*.c"))
                                                  + glob.glob(os.path.join(root, "Tests", "service", "*.py"))))
    for table, what in ((C_ONLY, "C_ONLY"), (EMBEDDED_ONLY, "EMBEDDED_ONLY")):
        for name, reason in table.items():
            if name not in functions:
                problems.append(f"{name}: marked {what} but not exported (remove the mark)")
            elif not reason.strip():
                problems.append(f"{name}: marked {what} without a reason")
    for name in functions:
        if not _called(name, catalogue):
            problems.append(f"{name}: no case in Tests/c/test_catalogue.c (its bad input and, where one makes "
                            "sense, a good call)")
        in_python = _called(name, binding_text)
        if in_python and name in C_ONLY:
            problems.append(f"{name}: marked C_ONLY, yet the binding calls it (remove the mark)")
        if not in_python and name not in C_ONLY:
            problems.append(f"{name}: no method of the Python binding calls it (python/passcode), and no C_ONLY "
                            "mark in scripts/check_coverage.py says why")
        methods = _methods_calling(name, binding)
        in_service = _called(name, service) or any(re.search(r"\." + re.escape(m) + r"\b", service) for m in methods)
        if in_service and name in EMBEDDED_ONLY:
            problems.append(f"{name}: marked EMBEDDED_ONLY, yet a service-mode test calls it (remove the mark)")
        if not in_service and name not in EMBEDDED_ONLY:
            problems.append(f"{name}: no service-mode run calls it (Tests/service/*.c, *.py, directly or through "
                            "the binding), and no EMBEDDED_ONLY mark in scripts/check_coverage.py says why")
    return problems


def self_test() -> List[str]:
    """The check is not empty: on a copy of the sources, a catalogue case taken out, a binding
    method's call taken out (its docstring left), and a service run's calls taken out each give
    the gap they should, and a mark without its reason is refused."""
    import shutil
    import tempfile
    wrong: List[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for part in ("include", os.path.join("python", "passcode"), os.path.join("Tests", "c"),
                     os.path.join("Tests", "service")):
            shutil.copytree(os.path.join(ROOT, part), os.path.join(tmp, part),
                            ignore=shutil.ignore_patterns("__pycache__"))

        def edit(rel: str, old: str, new: str) -> None:
            path = os.path.join(tmp, rel)
            text = _read(path)
            if old not in text:
                wrong.append(f"self-test: {rel} no longer has {old!r}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new))

        def expect(what: str, gap: str) -> None:
            found = check(tmp)
            if not any(p.startswith(gap) for p in found):
                wrong.append(f"self-test: {what} went unnoticed (wanted '{gap}...', got {found[:3]})")

        catalogue = os.path.join("Tests", "c", "test_catalogue.c")
        text = _read(os.path.join(tmp, catalogue))
        edit(catalogue, "passcode_failure_summary(", "/* passcode_failure_summary */ (")
        expect("a function taken out of the catalogue", "passcode_failure_summary: no case in Tests/c/test_catalogue.c")
        with open(os.path.join(tmp, catalogue), "w", encoding="utf-8") as f:
            f.write(text)
        user = os.path.join("python", "passcode", "user.py")
        edit(user, "_lib.passcode_user_reset(self._h(), _uid(uid))", "pass")
        expect("a binding method that no longer calls its function", "passcode_user_reset: no method of the Python binding")
        expect("the service run lost with the method", "passcode_user_reset: no service-mode run calls it")
        C_ONLY["passcode_user_reset"] = " "
        try:
            expect("a mark without a reason", "passcode_user_reset: marked C_ONLY without a reason")
        finally:
            del C_ONLY["passcode_user_reset"]
    return wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true", help="print each function's coverage")
    parser.add_argument("--self-test", action="store_true", help="show that a gap made on a copy is found")
    args = parser.parse_args()
    if args.self_test:
        wrong = self_test()
        for w in wrong:
            print("coverage: " + w, file=sys.stderr)
        if not wrong:
            print("coverage: self-test: a catalogue case, a binding method's call and a mark's reason taken out "
                  "of a copy are each found")
        return 1 if wrong else 0
    functions = exported_functions()
    if len(functions) < 100:
        print(f"coverage: the API model gives only {len(functions)} functions; it is not the header's",
              file=sys.stderr)
        return 1
    if args.list:
        binding = _binding_sources(ROOT)
        for name in functions:
            methods = sorted(_methods_calling(name, binding))
            print(f"{name}: python {', '.join(methods) or C_ONLY.get(name, '-')}"
                  + (f"; embedded only: {EMBEDDED_ONLY[name]}" if name in EMBEDDED_ONLY else ""))
    problems = check(ROOT, functions)
    for p in problems:
        print("coverage: " + p, file=sys.stderr)
    if problems:
        print(f"coverage: {len(problems)} gaps over {len(functions)} exported functions", file=sys.stderr)
        return 1
    print(f"coverage: each of the {len(functions)} exported functions has a catalogue case, a Python method "
          f"({len(C_ONLY)} C-only, with their reasons) and a service-mode run ({len(EMBEDDED_ONLY)} embedded-only, "
          "with their reasons)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
