"""The TPM binding from Python, against an swtpm this module starts on loopback."""
import os
import shutil
import socket
import subprocess
import time

import pytest

import passcode
from conftest import PC1, PC2, ONLY_TPM


def _free_port_pair():
    """A free port whose next one is free too: the swtpm TCTI expects the control port there."""
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port
    raise RuntimeError("no two adjacent free ports")


@pytest.fixture(scope="module")
def swtpm(tmp_path_factory):
    if not shutil.which("swtpm"):
        pytest.fail("swtpm is not installed (scripts/ensure-deps.sh installs it)")
    state = tmp_path_factory.mktemp("swtpm")
    port = _free_port_pair()
    ctrl = port + 1
    proc = subprocess.Popen(["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={state}",
                             "--server", f"type=tcp,port={port},bindaddr=127.0.0.1",
                             "--ctrl", f"type=tcp,port={ctrl},bindaddr=127.0.0.1",
                             "--flags", "not-need-init,startup-clear"])
    tcti = f"swtpm:host=127.0.0.1,port={port}"
    for _ in range(100):
        if subprocess.run(["tpm2_getcap", "-T", tcti, "properties-fixed"], capture_output=True).returncode == 0:
            break
        time.sleep(0.05)
    subprocess.run(["tpm2_dictionarylockout", "-T", tcti, "-s", "-n", "32", "-t", "1000", "-l", "1000"],
                   check=True, capture_output=True)
    yield tcti
    proc.terminate()
    proc.wait()


def _open(path, clock, **kw):
    return passcode.Store(str(path), ops_limit=1, mem_limit=8192, clock=clock, session_keyring=False, **kw)


@pytest.mark.embedded_only(ONLY_TPM)
def test_bound_store_unlocks_through_the_tpm(tmp_path, clock, swtpm):
    with _open(tmp_path / "s.db", clock, tpm=swtpm) as s:
        assert not s.tpm_bound
        s.set_passcode(PC1)
        assert s.tpm_bound
        key = bytes(s.unlock_key(PC1))
        with pytest.raises(passcode.WrongPasscode):
            s.verify(PC2)
    with pytest.raises(passcode.TPMRequired):
        _open(tmp_path / "s.db", clock)
    with pytest.raises(passcode.TPMUnavailable) as e:
        _open(tmp_path / "s.db", clock, tpm="swtpm:host=127.0.0.1,port=1")
    assert "port=1" in str(e.value)
    with _open(tmp_path / "s.db", clock, tpm=swtpm) as s:
        assert s.failed_attempts == 1
        assert bytes(s.unlock_key(PC1)) == key


@pytest.mark.embedded_only(ONLY_TPM)
def test_restored_copy_raises_rollback(tmp_path, clock, swtpm):
    with _open(tmp_path / "r.db", clock, tpm=swtpm) as s:
        s.set_passcode(PC1)
    shutil.copy(tmp_path / "r.db", tmp_path / "saved.db")
    with _open(tmp_path / "r.db", clock, tpm=swtpm) as s:
        for guess in ("111112", "222223", "333334"):
            with pytest.raises(passcode.WrongPasscode):
                s.verify(guess)
    shutil.copy(tmp_path / "saved.db", tmp_path / "r.db")
    os.chmod(tmp_path / "r.db", 0o600)
    with _open(tmp_path / "r.db", clock, tpm=swtpm) as s:
        assert s.failed_attempts == 0
        with pytest.raises(passcode.TPMRollback):
            s.verify(PC1)
        with pytest.raises(passcode.ResetRequired):
            s.verify(PC1)


@pytest.mark.embedded_only(ONLY_TPM)
def test_bind_and_unbind_keep_the_key(tmp_path, clock, swtpm):
    with _open(tmp_path / "b.db", clock) as s:
        s.set_passcode(PC1)
        key = bytes(s.unlock_key(PC1))
    with _open(tmp_path / "b.db", clock, tpm=swtpm) as s:
        s.tpm_bind(PC1)
        assert s.tpm_bound
        assert bytes(s.unlock_key(PC1)) == key
        s.tpm_unbind(PC1)
        assert not s.tpm_bound
    with _open(tmp_path / "b.db", clock) as s:
        assert bytes(s.unlock_key(PC1)) == key
    with pytest.raises(TypeError):
        _open(tmp_path / "b.db", clock, tpm=5)


@pytest.mark.embedded_only(ONLY_TPM)
def test_posture_says_plainly_what_an_unprovisioned_binding_promises(tmp_path, clock, swtpm):
    with _open(tmp_path / "p.db", clock, tpm=swtpm) as s:
        assert s.tpm_posture()["no_offline_search"] == 0  # not bound yet
        s.set_passcode(PC1)
        p = s.tpm_posture()
        assert p["owner_auth_set"] == 0 and p["lockout_auth_set"] == 0
        assert (p["max_tries"], p["recovery_time"], p["lockout_recovery"]) == (32, 1000, 1000)
        assert p["no_offline_search"] == 1
        assert p["hardware_guess_limit"] == 0 and p["guess_limit"] == 0
    with _open(tmp_path / "q.db", clock) as s:
        with pytest.raises(passcode.InvalidArgument):
            s.tpm_posture()  # opened without the TPM option


@pytest.mark.embedded_only(ONLY_TPM)
def test_owner_auth_file_others_may_read_is_refused(tmp_path, clock, swtpm):
    loose = tmp_path / "owner-auth"
    loose.write_text("00" * 32 + "\n")
    os.chmod(loose, 0o644)
    with pytest.raises(passcode.TPMOwnerAuth) as e:
        _open(tmp_path / "o.db", clock, tpm=swtpm, tpm_owner_auth_file=str(loose))
    assert str(loose) in str(e.value)
    assert e.value.status == passcode.Status.ERR_TPM_OWNER_AUTH
    assert not (tmp_path / "o.db").exists()
    with pytest.raises(passcode.InvalidArgument):
        _open(tmp_path / "o.db", clock, tpm=swtpm, tpm_owner_auth_file="relative/path")
