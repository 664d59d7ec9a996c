"""What a new user meets first in the binding: paths as os.PathLike, a file that is
not a store, docstrings, repr, one rule for properties, and where the library is looked for."""
import inspect
import os
import pathlib
import re
import shutil
import subprocess
import sys
import warnings

import pytest

import passcode
from passcode import BiometricKind, BiometricRefusal

from conftest import PC1, ROOT, ONLY_FILE, ONLY_NO_STORE

LIB = os.path.join(ROOT, "build", "libpasscode.so.0")


@pytest.mark.embedded_only(ONLY_FILE)
def test_store_accepts_pathlike(tmp_path, clock):
    path = tmp_path / "p.db"  # a pathlib.Path, as sqlite3.connect accepts
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
    assert path.exists()

    class Custom:
        def __fspath__(self):
            return str(path)
    with passcode.Store(Custom(), ops_limit=1, mem_limit=8192, clock=clock) as s:
        assert s.is_set
    with passcode.Store(os.fsencode(path), ops_limit=1, mem_limit=8192, clock=clock) as s:
        assert s.is_set
    with pytest.raises(TypeError, match="os.PathLike"):
        passcode.Store(42)


@pytest.mark.embedded_only(ONLY_FILE)
def test_a_file_that_is_not_a_store_is_named_so_with_no_chmod_advice(tmp_path):
    other = tmp_path / "passwd"
    other.write_text("root:x:0:0:root:/root:/bin/bash\n")
    os.chmod(other, 0o644)  # as /etc/passwd
    before = other.read_bytes()
    with pytest.raises(passcode.NotAStore) as e:
        passcode.Store(other)
    assert "not a libpasscode store" in e.value.message
    assert "chmod" not in e.value.message
    assert other.read_bytes() == before and oct(other.stat().st_mode & 0o777) == "0o644"
    if os.path.exists("/etc/passwd"):
        with pytest.raises(passcode.PasscodeError) as e:
            passcode.Store("/etc/passwd")
        assert "chmod" not in e.value.message


@pytest.mark.embedded_only(ONLY_FILE)
def test_a_real_store_readable_by_others_still_gets_the_advice(tmp_path, clock):
    path = tmp_path / "p.db"
    passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock).close()
    os.chmod(path, 0o644)
    with pytest.raises(passcode.PermissionDenied, match="chmod 600"):
        passcode.Store(path)


def _public(cls):
    for name, member in vars(cls).items():
        if not name.startswith("_"):
            yield name, member
    if cls is passcode.Store or cls is passcode.Flow:
        yield "close", passcode.Store.close


@pytest.mark.parametrize("cls", [passcode.Store, passcode.Flow])
def test_every_public_member_has_a_docstring(cls):
    missing = [name for name, member in _public(cls)
               if not inspect.getdoc(member.fget if isinstance(member, property) else member)]
    assert not missing, f"{cls.__name__} members without a docstring: {missing}"


def test_repr_says_what_the_store_is(tmp_path, clock):
    path = tmp_path / "r.db"
    s = passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock)
    assert repr(s) == f"<passcode.Store {str(path)!r} open: no passcode>"
    s.set_passcode(PC1)
    s.report(passcode.Event.LOCK_NOW)
    assert repr(s) == f"<passcode.Store {str(path)!r} open: passcode on, locked>"
    with s.flow(passcode.FlowKind.UNLOCK) as f:
        f.type("38")
        assert repr(f) == "<passcode.Flow UNLOCK ENTER_PASSCODE 2/6>"
    s.close()
    assert repr(s) == f"<passcode.Store {str(path)!r} closed>"


def test_a_state_is_a_property_an_action_a_method(tmp_path, clock, reader):
    """One rule: security_label and biometric_refusal are both properties (no call, no side effect)."""
    with passcode.Store(tmp_path / "b.db", ops_limit=1, mem_limit=8192, clock=clock) as s:
        for name in ("security_label", "biometric_refusal", "biometric_lead", "is_set", "locked", "lock_state"):
            assert isinstance(inspect.getattr_static(passcode.Store, name), property), name
        for name in ("verify", "report", "set_setting", "biometric_unlock", "biometric_failed"):
            assert callable(inspect.getattr_static(passcode.Store, name)), name
        assert s.biometric_refusal == BiometricRefusal.NO_PASSCODE
        s.set_biometric_availability(True, BiometricKind.FINGERPRINT)
        s.set_passcode(PC1)
        s.set_setting(passcode.Setting.BIOMETRIC_ENABLED, 1)
        assert s.biometric_refusal == BiometricRefusal.NONE
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert s.biometric_check() == BiometricRefusal.NONE  # the old spelling, deprecated
        assert any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_biometric_unlock_is_refused_while_the_lock_is_off(tmp_path, clock, reader):
    """No fingerprint switch with the passcode off; the library refuses the setting."""
    with passcode.Store(tmp_path / "f.db", ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_biometric_availability(True, BiometricKind.FINGERPRINT)
        s.set_passcode(PC1)
        s.disable(PC1)
        with pytest.raises(passcode.InvalidSetting, match="passcode lock to be on"):
            s.set_setting(passcode.Setting.BIOMETRIC_ENABLED, 1)
        assert s.get_setting(passcode.Setting.BIOMETRIC_ENABLED) == 0
        s.enable()
        s.set_setting(passcode.Setting.BIOMETRIC_ENABLED, 1)
        assert s.get_setting(passcode.Setting.BIOMETRIC_ENABLED) == 1


# -- where the library is looked for ---------------------------------------------------------

def _copy_binding(tmp_path, bundled=False, recorded=None):
    """A copy of the binding outside the checkout (as pip installs it): optionally with a bundled
    libpasscode.so.0 next to __init__.py, or with the LIBDIR make install records."""
    site = tmp_path / "site"
    shutil.copytree(os.path.join(ROOT, "python", "passcode"), site / "passcode",
                    ignore=shutil.ignore_patterns("__pycache__", "_installed_libdir", "libpasscode.so*"))
    if bundled:
        shutil.copy(LIB, site / "passcode" / "libpasscode.so.0")
    if recorded:
        (site / "passcode" / "_installed_libdir").write_text(str(recorded) + "\n")
    return site


#: Runs a command with every installed libpasscode hidden (a mount namespace of its own; as
#: root, or a no-op when none is installed): the lookup is then the binding's alone.
HIDE = os.path.join(ROOT, "Tests", "packaging", "hide_installed.sh")


def _loaded(site, **env):
    clean = {k: v for k, v in os.environ.items() if k not in ("PASSCODE_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH")}
    clean.update(env)
    clean["PYTHONPATH"] = str(site)
    r = subprocess.run([HIDE, "", sys.executable, "-c", "import passcode._ffi as f; print(f.lib._name)"],
                       env=clean, capture_output=True, text=True, cwd=str(site))
    return r.stdout.strip() if r.returncode == 0 else "ImportError: " + r.stderr.strip().splitlines()[-1]


@pytest.fixture
def no_system_library():
    """An installed copy (make install, then ldconfig) is hidden from each lookup (HIDE); where it
    cannot be (not root), the test cannot show the order and is skipped, saying why."""
    r = subprocess.run([HIDE, "", "true"], capture_output=True, text=True)
    if r.returncode == 77:
        if os.environ.get("PASSCODE_SKIPPED"):  # make test's summary counts it (Tests/run_groups.sh)
            with open(os.path.join(os.environ["PASSCODE_SKIPPED"], "parts"), "a") as parts:
                parts.write(f"test-python: the library's lookup order ({r.stderr.strip()})\n")
        pytest.skip(r.stderr.strip())
    assert r.returncode == 0, r.stderr


@pytest.mark.embedded_only(ONLY_NO_STORE)
def test_library_lookup_order(tmp_path, no_system_library):
    libdir = tmp_path / "prefix" / "lib"
    libdir.mkdir(parents=True)
    shutil.copy(LIB, libdir / "libpasscode.so.0")
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copy(LIB, other / "libpasscode.so.0")

    # 1. PASSCODE_LIBRARY wins over everything, and alone: a wrong one is an error, not a fallback.
    site = _copy_binding(tmp_path / "a", bundled=True, recorded=libdir)
    assert _loaded(site, PASSCODE_LIBRARY=str(other / "libpasscode.so.0")) == str(other / "libpasscode.so.0")
    assert _loaded(site, PASSCODE_LIBRARY=str(tmp_path / "none.so")).startswith("ImportError")
    # 2. The copy bundled in a wheel, next to __init__.py, before the loader and the record.
    assert _loaded(site, LD_LIBRARY_PATH=str(other)) == str(site / "passcode" / "libpasscode.so.0")
    # 3. The LIBDIR make install recorded, before the loader: an older copy the loader would find
    #    (a system one, or LD_LIBRARY_PATH) does not shadow the library this binding was installed with.
    site = _copy_binding(tmp_path / "b", recorded=libdir)
    assert _loaded(site, LD_LIBRARY_PATH=str(other)) == str(libdir / "libpasscode.so.0")
    assert _loaded(site) == str(libdir / "libpasscode.so.0")
    # 4. The soname through the dynamic loader, when the record is missing or names a removed LIBDIR.
    site = _copy_binding(tmp_path / "d", recorded=tmp_path / "removed")
    assert _loaded(site, LD_LIBRARY_PATH=str(other)) == "libpasscode.so.0"
    # Nothing: the error says how to get it.
    site = _copy_binding(tmp_path / "c")
    err = _loaded(site)
    assert err.startswith("ImportError") and "make install" in err and "PASSCODE_LIBRARY" in err


def test_make_demo_installs_only_what_the_demo_needs():
    """make demo asks ensure-deps for the demo set: no test toolchain."""
    def listed(which):
        r = subprocess.run([os.path.join(ROOT, "scripts", "ensure-deps.sh"), "--list", which],
                           capture_output=True, text=True, check=True)
        return set(r.stdout.split())
    demo, test = listed("demo"), listed("test")
    assert {"libsodium-dev", "libsqlite3-dev", "pkg-config", "gcc", "libncurses-dev"} <= demo
    tools = {"valgrind", "swtpm", "swtpm-tools", "tpm2-tools", "doxygen", "python3-dbusmock", "python3-aiosmtpd",
             "xvfb", "xauth", "dbus-daemon", "man-db", "tmux", "keyutils"}
    assert not demo & tools, f"make demo would install test tools: {sorted(demo & tools)}"
    assert tools <= test and demo <= test
    with open(os.path.join(ROOT, "Makefile")) as f:
        rules = [line for line in f if line.startswith("demo:")]
    assert rules and "deps-demo" in rules[0].split() and "deps" not in rules[0].split()


def test_help_shows_one_store_class_and_flush_docstrings():
    """help(passcode.Store): one class, no private mixin (passcode.settings._Settings, ...)
    in its bases or as "Methods inherited from"; every async twin's docstring as flush as the
    blocking method's (it used to carry the source's indentation, shifted right)."""
    import pydoc
    text = pydoc.render_doc(passcode.Store, renderer=pydoc.plaintext)
    assert "class Store(builtins.object)" in text
    assert "Method resolution order" not in text and "inherited from" not in text
    assert not re.search(r"passcode\.\w+\._[A-Z]\w*", text), re.findall(r"passcode\.\w+\._[A-Z]\w*", text)
    for name in ("verify_async", "remove_store_async", "authorize_async", "set_passcode_async"):
        doc = inspect.getdoc(getattr(passcode.Store, name))
        blocking = inspect.getdoc(getattr(passcode.Store, name[:-len("_async")]))
        assert doc.endswith(blocking), name
        assert not [line for line in doc.splitlines() if line.startswith("        ")], name
    for name in ("set_setting", "get_setting", "set_passcode", "verify", "lock_screen", "seal"):
        assert name in text, name


def test_set_setting_and_the_deprecated_set_and_get(tmp_path, clock):
    """store.set_setting/get_setting name what they set (`set` once sat beside `set_passcode`);
    the old `set` and `get` still work for a release, with a DeprecationWarning naming the new ones."""
    with passcode.Store(tmp_path / "s.db", ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_setting(passcode.Setting.AUTO_LOCK_SECONDS, 60)
        assert s.get_setting(passcode.Setting.AUTO_LOCK_SECONDS) == 60
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s.set(passcode.Setting.AUTO_LOCK_SECONDS, 300)
            assert s.get(passcode.Setting.AUTO_LOCK_SECONDS) == 300
        messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
        assert messages == ["Store.set() is deprecated; use Store.set_setting()",
                            "Store.get() is deprecated; use Store.get_setting()"]
        assert all(w.filename == __file__ for w in caught)  # the warning points at the caller
