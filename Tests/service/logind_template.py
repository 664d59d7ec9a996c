"""python-dbusmock's logind template (dbusmock.templates.logind: seats, users, AddSession) with
what passcoded asks of it and that template lacks: Manager.GetSessionByPID. logind finds a
process's session by its cgroup; here a table the test fills says it: SetSessionOfPID(pid,
session_id) for one process, SetSessionOfUID(uid, session_id) for every other process of a uid
(read from /proc/PID/status, so the mock runs as root). A pid in neither answers
org.freedesktop.login1.NoSessionForPID, as logind does for a process outside every session. A
session made with AddSession is active or not as asked, local and on its seat; the mock's
UpdateProperties changes that (Remote true, Seat ("", "/")). SYSTEM_BUS: the bus
DBUS_SYSTEM_BUS_ADDRESS names (python3 -m dbusmock --template THIS_FILE with that variable set)."""
import dbus

from dbusmock import MOCK_IFACE
from dbusmock.templates.logind import *  # noqa: F401,F403 (the template's methods, BUS_NAME, MAIN_OBJ, SYSTEM_BUS, load)
from dbusmock.templates.logind import MAIN_IFACE

SESSION_OF_PID = {}
SESSION_OF_UID = {}


def _session_path(session_id):
    return dbus.ObjectPath("/org/freedesktop/login1/session/" + session_id)


def _uid_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


@dbus.service.method(MAIN_IFACE, in_signature="u", out_signature="o")
def GetSessionByPID(self, pid):
    pid = int(pid)
    session = SESSION_OF_PID[pid] if pid in SESSION_OF_PID else SESSION_OF_UID.get(_uid_of(pid))
    if not session:
        raise dbus.exceptions.DBusException(f"PID {pid} does not belong to any known session",
                                            name="org.freedesktop.login1.NoSessionForPID")
    return _session_path(session)


@dbus.service.method(MOCK_IFACE, in_signature="us", out_signature="")
def SetSessionOfPID(self, pid, session_id):
    """The session of the process `pid` ("": none, whatever its uid's)."""
    SESSION_OF_PID[int(pid)] = str(session_id)


@dbus.service.method(MOCK_IFACE, in_signature="us", out_signature="")
def SetSessionOfUID(self, uid, session_id):
    """The session of every process of `uid` not named by SetSessionOfPID ("": none)."""
    if session_id:
        SESSION_OF_UID[int(uid)] = str(session_id)
    else:
        SESSION_OF_UID.pop(int(uid), None)
