import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("PASSCODE_LIBRARY", os.path.join(ROOT, "build", "libpasscode.so.0"))
sys.path.insert(0, os.path.join(ROOT, "python"))

import passcode  # noqa: E402

PC1, PC2, PC3 = "386491", "915372", "502817"


class Clock:
    """A host clock the tests move by hand: (boot_ms, wall_ms, boot_id)."""

    def __init__(self):
        self.boot, self.wall, self.boot_id = 1_000_000, 1_700_000_000_000, 5

    def __call__(self):
        return self.boot, self.wall, self.boot_id

    def advance(self, seconds):
        """Time passes: both clocks move."""
        self.boot += int(seconds * 1000)
        self.wall += int(seconds * 1000)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(tmp_path, clock):
    with passcode.Store(str(tmp_path / "store.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
        yield s


@pytest.fixture
def locked_store(store):
    store.set_passcode(PC1)
    return store


# ---- the two back ends ---------------------------------------------------------------------
# PASSCODE_TEST_BACKEND=service runs the suite in service mode (as the C suite does, see
# Tests/c/api_support.h): every Store the tests open with the test's cheap cost and clock
# (ops_limit=1, mem_limit=8192, clock=) opens instead the store passcoded keeps under an app id
# made from the path, and Clock.advance moves the service's clock (PASSCODE_TEST_CLOCK_FILE, the
# root-owned offset file of the daemon's configuration: the suite runs as root). Any other host
# option is passed on, so the service refuses it and the test shows it. A test that cannot run
# through the service is marked, with its reason:
#   @pytest.mark.embedded_only(REASON)          a refused option, the store file, a file attack
#   @pytest.mark.not_yet_in_service("call")     a call the service does not carry yet (to remove
#                                               once it does)
# Both back ends print the counts at the end; in service mode a marked test is skipped, and an
# unmarked one that leaves a file in its tmp_path (an embedded store) fails. With
# PASSCODE_TEST_RUN_NOT_YET=1 the not_yet_in_service tests run anyway (which marks can go?).
SERVICE = os.environ.get("PASSCODE_TEST_BACKEND", "embedded") == "service"
RUN_NOT_YET = SERVICE and os.environ.get("PASSCODE_TEST_RUN_NOT_YET") == "1"

ONLY_CLOCK = "the host clock (boot and wall apart, boot_id restarts, time going back)"
ONLY_PEPPER = "a host pepper"
ONLY_WEAK = "allow_weak"
ONLY_COST = "an Argon2id cost of the host's"
ONLY_TPM = "TPM options"
ONLY_KEYRING = "the host's session keyring (passcoded keeps none)"
ONLY_FILE = "reads, writes or snapshots the store file or its -wal"
ONLY_OPEN = "the embedded open: a path, its folder and options of the host's"
ONLY_NO_STORE = "opens no store (the library alone)"
ONLY_PROCESS = "another process of the host opens the store by its path"

_marks = {}  # (kind, reason) -> number of tests


def pytest_configure(config):
    config.addinivalue_line("markers", "embedded_only(reason): runs on the embedded store only, for this reason")
    config.addinivalue_line("markers", "not_yet_in_service(call): needs a call the service does not carry yet")
    # The suite uses none of the binding's deprecated spellings: one would fail the test that
    # used it (the tests of the deprecations record their warnings themselves).
    config.addinivalue_line("filterwarnings", "error:Store\\..* is deprecated:DeprecationWarning")


def _mark_of(item):
    m = item.get_closest_marker("embedded_only")
    if m:
        return "embedded-only", m.args[0]
    m = item.get_closest_marker("not_yet_in_service")
    if m:
        return "not yet through the service", m.args[0]
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        mark = _mark_of(item)
        if mark:
            _marks[mark] = _marks.get(mark, 0) + 1
            if SERVICE and not (RUN_NOT_YET and mark[0] == "not yet through the service"):
                item.add_marker(pytest.mark.skip(reason=f"{mark[0]}: {mark[1]}"))


def pytest_terminal_summary(terminalreporter):
    total = len(terminalreporter.stats.get("passed", [])) + len(terminalreporter.stats.get("failed", [])) \
        + len(terminalreporter.stats.get("skipped", [])) + len(terminalreporter.stats.get("error", []))
    marked = sum(_marks.values())
    write = terminalreporter.write_line
    if SERVICE:
        write(f"service mode: {total - marked} tests ran through the service, {marked} did not:")
    else:
        write(f"embedded store: {total} tests; in service mode {total - marked} of them run too, {marked} do not:")
    for kind in ("embedded-only", "not yet through the service"):
        write(f"  {kind}: {sum(n for (k, _), n in _marks.items() if k == kind)}")
        for (k, why), n in sorted(_marks.items(), key=lambda x: -x[1]):
            if k == kind:
                write(f"    {n:3d}  {why}")


def _service_app_id(path):
    """The service's app id for a test's store path: a hash of the path (a run of its own) and
    the file's name, in the characters an app id may hold."""
    import hashlib
    raw = os.fsdecode(os.fspath(path))
    name = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in os.path.basename(raw))
    return f"p{hashlib.sha256(raw.encode()).hexdigest()[:12]}-{name}"[:64]


def _move_service_clock(ms):
    """The service's clock moves `ms` forward (its offset file, seconds or "Nms")."""
    file = os.environ["PASSCODE_TEST_CLOCK_FILE"]
    words = open(file).read().split() or ["0"]
    text = words[0]
    offset = int(text[:-2]) if text.endswith("ms") else int(text) * 1000
    with open(file + ".new", "w") as f:
        f.write(f"{offset + int(ms)}ms{' frozen' if 'frozen' in words[1:] else ''}\n")
    os.chmod(file + ".new", 0o644)
    os.replace(file + ".new", file)


if SERVICE:
    _embedded_init = passcode.Store.__init__

    def _service_init(self, path, *, ops_limit=None, mem_limit=None, clock=None, **host):
        if (ops_limit, mem_limit) != (None, None) and (ops_limit, mem_limit) != (1, 8192):
            host.update(ops_limit=ops_limit, mem_limit=mem_limit)  # a cost of the test's own: refused
        if clock is not None and not isinstance(clock, Clock):
            host["clock"] = clock  # a clock of the test's own: refused
        host.setdefault("service", _service_app_id(path))
        _embedded_init(self, path, **host)

    passcode.Store.__init__ = _service_init
    _embedded_advance = Clock.advance

    def _advance(self, seconds):
        _embedded_advance(self, seconds)
        _move_service_clock(int(seconds * 1000))

    Clock.advance = _advance


def _fprintd_mock(*args):
    subprocess.run(["busctl", "--system", "call", "net.reactivated.Fprint", "/net/reactivated/Fprint/Manager",
                    "org.freedesktop.DBus.Mock"] + list(args), check=True, capture_output=True)


class Reader:
    """The fingerprint reader a test has. Embedded: nothing (the host reports availability).
    Service mode: passcoded asks fprintd at each availability report and each unlock, and takes
    nothing from the host; the template test_service.py starts on the suite's bus has no reader
    until plug() adds one with a finger enrolled (unplug() removes it; both no-ops when already so)."""

    def __init__(self) -> None:
        self.plugged = False

    def plug(self) -> None:
        if SERVICE and not self.plugged:
            _fprintd_mock("AddDevice", "sas", "Test Sensor", "1", "right-index-finger")
        self.plugged = True

    def unplug(self) -> None:
        if SERVICE and self.plugged:
            _fprintd_mock("RemoveObject", "o", "/net/reactivated/Fprint/Device/0")
        self.plugged = False


@pytest.fixture
def reader():
    """A reader plugged in for the test (service mode: the fprintd template's), unplugged after."""
    r = Reader()
    r.plug()
    yield r
    r.unplug()


@pytest.fixture
def finger(reader):
    """The finger a biometric unlock reads next. Embedded: nothing (the host reports the match).
    Service mode: passcoded reads it through fprintd (the `reader` fixture's reader), and
    finger("verify-match") queues what it reads next."""
    def queue(result):
        if SERVICE:
            _fprintd_mock("QueueVerifyResult", "ss", "/net/reactivated/Fprint/Device/0", result)
    return queue


class Mailbox:
    """Reset codes on both back ends. Embedded: the host's on_reset_code callback gets them.
    Service mode: passcoded mails them to the store's recipient through the relay test_service.py
    runs (aiosmtpd on loopback), which writes each mail into PASSCODE_TEST_MAIL_DIR
    (NNNNNN-RECIPIENT; refused-NNNNNN-RECIPIENT while the file "refuse" is there, when it refuses
    every mail); the host gets none. `fail = True` makes a delivery fail (the callback raises;
    the relay refuses the mail). `codes` are the codes delivered, `handed` every code that
    reached the callback or the relay, delivered or not; `Failed` what a failed delivery raises."""

    Failed = passcode.ResetDeliveryUnavailable if SERVICE else passcode.HookFailed
    _recipients = 0

    def __init__(self):
        self.codes, self.handed, self.fail, self.to = [], [], False, None

    def attach(self, store):
        """This mailbox becomes the store's (which has a passcode): its callback, or in service
        mode a recipient of its own (the suite runs as root, whose stores need no passcode for
        it) while the host's callback is refused."""
        if not SERVICE:
            store.on_reset_code(self._deliver)
            return
        with pytest.raises(passcode.RefusedInServiceMode):
            store.on_reset_code(self._deliver)
        Mailbox._recipients += 1
        self.to = f"p{os.getpid()}-{Mailbox._recipients}@example.org"
        store.set_reset_recipient(self.to, PC1)
        assert store.reset_recipient == "p***@example.org"

    def _deliver(self, code):
        self.handed.append(code)
        if self.fail:
            raise OSError("network down")
        self.codes.append(code)

    def request(self, store):
        """store.request_reset_code(); the code sent is then self.codes[-1] (in service mode read
        from the one mail the relay received: a success without it, or a failure with one, fails)."""
        if not SERVICE:
            return store.request_reset_code()
        folder = os.environ["PASSCODE_TEST_MAIL_DIR"]
        refuse = os.path.join(folder, "refuse")
        if self.fail:
            open(refuse, "w").close()
        ok = False
        try:
            store.request_reset_code()
            ok = True
        finally:
            if self.fail:
                os.unlink(refuse)
            delivered = self._collect(folder)
            assert len(delivered) == (1 if ok else 0), f"request {'answered' if ok else 'failed'}, mails delivered: {len(delivered)}"

    def _collect(self, folder):
        import re
        delivered = []
        for name in sorted(os.listdir(folder), key=lambda n: n.removeprefix("refused-")):
            refused = name.startswith("refused-")
            seq, _, to = name.removeprefix("refused-").partition("-")
            if not seq.isdigit() or to != self.to:
                continue
            with open(os.path.join(folder, name)) as f:
                found = re.findall(r"reset code is (\d+)", f.read())
            os.unlink(os.path.join(folder, name))
            self.handed.extend(found)
            if not refused:
                delivered.extend(found)
        self.codes.extend(delivered)
        return delivered


@pytest.fixture
def mailbox():
    return Mailbox()


@pytest.fixture(autouse=True)
def _no_embedded_store_in_service_mode(request, tmp_path):
    """In service mode a test that runs leaves no file in its tmp_path: one that did opened an
    embedded store, and would pass without the service (it must be marked instead)."""
    yield
    mark = _mark_of(request.node)
    if SERVICE and (not mark or (RUN_NOT_YET and mark[0] == "not yet through the service")):
        left = sorted(os.listdir(tmp_path))
        assert not left, f"made {left} in the test folder: an embedded store in service mode (mark the test)"
