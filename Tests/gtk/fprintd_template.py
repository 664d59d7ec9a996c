"""A python-dbusmock template for fprintd (net.reactivated.Fprint), which python-dbusmock 0.28
does not ship: the manager, and devices added with AddDevice(name, fingers). A verification
waits for a finger, as the reader does: QueueVerifyResult("verify-match" or "verify-no-match")
is the finger, answered with VerifyStatus(result, done=true) at once while a verification runs,
or when the next one starts. With none queued a verification stays unanswered (a reader nobody
touches: the timeout case). A device claimed, or made busy with SetBusy, answers another Claim with
net.reactivated.Fprint.Error.AlreadyInUse, as fprintd does, until Release; VerifyStart and
VerifyStop on a device not claimed answer ClaimDevice. GetRecord(path) lists each Claim (with the
user name it named), VerifyStart, VerifyStop and Release in order, so a test can assert that a
claim was released on every path. As fprintd does, a claim whose claimer's connection leaves the
bus is released then (recorded as ("Release", "vanished")). SYSTEM_BUS: the bus DBUS_SYSTEM_BUS_ADDRESS names, so a private
test bus works as well (python3 -m dbusmock --template ... with that variable set)."""
import time

import dbus
import dbus.service

from dbusmock import MOCK_IFACE, mockobject

SYSTEM_BUS = True
BUS_NAME = "net.reactivated.Fprint"
MAIN_OBJ = "/net/reactivated/Fprint/Manager"
MAIN_IFACE = "net.reactivated.Fprint.Manager"
DEVICE_IFACE = "net.reactivated.Fprint.Device"
ERROR = "net.reactivated.Fprint.Error."


def _claim(self, user, sender=None):
    """Claim, as fprintd answers it, remembering the claimer's connection."""
    self.log(f'Claim "{user}"')
    self.call_log.append((int(time.time()), "Claim", [dbus.String(user)]))
    if self.claimed or self.busy:
        raise dbus.exceptions.DBusException("Device was already claimed", name=ERROR + "AlreadyInUse")
    self.claimed = True
    self.claimer = sender
    self.record.append(("Claim", str(user)))


def _gone(name, old_owner, new_owner):
    """fprintd releases a device whose claimer left the bus."""
    if new_owner or not name.startswith(":"):
        return
    for path, obj in list(mockobject.objects.items()):
        if "/Device/" in path and getattr(obj, "claimed", False) and getattr(obj, "claimer", None) == name:
            obj.claimed = False
            obj.verifying = False
            obj.claimer = None
            obj.record.append(("Release", "vanished"))


def load(mock, parameters):
    mock.connection.add_signal_receiver(_gone, "NameOwnerChanged", "org.freedesktop.DBus", "org.freedesktop.DBus",
                                        "/org/freedesktop/DBus")
    mock.AddMethods(MAIN_IFACE, [
        ("GetDevices", "", "ao", 'ret = [k for k in objects if "/Device/" in k]'),
        ("GetDefaultDevice", "", "o",
         'devs = sorted(k for k in objects if "/Device/" in k)\n'
         'if not devs: raise dbus.exceptions.DBusException("No devices available", name="%sNoSuchDevice")\n'
         'ret = devs[0]' % ERROR),
    ])


@dbus.service.method(MOCK_IFACE, in_signature="sas", out_signature="s")
def AddDevice(self, name, fingers):
    path = "/net/reactivated/Fprint/Device/%d" % len([k for k in mockobject.objects if "/Device/" in k])
    self.AddObject(path, DEVICE_IFACE, {"name": dbus.String(name), "scan-type": "press",
                                        "num-enroll-stages": dbus.Int32(5)}, [
        ("ListEnrolledFingers", "s", "as",
         'if not self.fingers: raise dbus.exceptions.DBusException("No prints", name="%sNoEnrolledPrints")\n'
         'ret = self.fingers' % ERROR),
        ("Release", "", "",
         'if not self.claimed: raise dbus.exceptions.DBusException("Device was not claimed", name="%sClaimDevice")\n'
         'self.claimed = False\n'
         'self.claimer = None\n'
         'self.verifying = False\n'
         'self.record.append(("Release", ""))' % ERROR),
        ("VerifyStart", "s", "",
         'if not self.claimed: raise dbus.exceptions.DBusException("Device was not claimed", name="%sClaimDevice")\n'
         'if self.verifying: raise dbus.exceptions.DBusException("Verification already in progress", name="%sAlreadyInUse")\n'
         'self.record.append(("VerifyStart", str(args[0])))\n'
         'self.verifying = True\n'
         'self.verify_starts += 1\n'
         'if self.results:\n'
         '    self.verifying = False\n'
         '    self.EmitSignal("%s", "VerifyStatus", "sb", [self.results.pop(0), True])' % (ERROR, ERROR, DEVICE_IFACE)),
        ("VerifyStop", "", "",
         'if not self.claimed: raise dbus.exceptions.DBusException("Device was not claimed", name="%sClaimDevice")\n'
         'self.verifying = False\n'
         'self.record.append(("VerifyStop", ""))' % ERROR),
    ])
    obj = mockobject.objects[path]
    # Claim with its caller's connection (a code string has no sender): dbusmock dispatches by this table.
    claim = dbus.service.method(DEVICE_IFACE, in_signature="s", out_signature="", sender_keyword="sender")(_claim)
    claim.__name__ = "Claim"
    obj.methods[DEVICE_IFACE]["Claim"] = ("s", "", "", claim)
    obj.claimer = None
    obj.fingers = list(fingers)
    obj.results = []
    obj.claimed = False
    obj.verifying = False
    obj.verify_starts = 0
    obj.record = []
    obj.busy = False
    return path


@dbus.service.method(MOCK_IFACE, in_signature="sas", out_signature="")
def SetEnrolledFingers(self, path, fingers):
    mockobject.objects[path].fingers = list(fingers)


@dbus.service.method(MOCK_IFACE, in_signature="ss", out_signature="")
def QueueVerifyResult(self, path, result):
    dev = mockobject.objects[path]
    if dev.verifying:
        dev.verifying = False
        dev.EmitSignal(DEVICE_IFACE, "VerifyStatus", "sb", [result, True])
    else:
        dev.results.append(result)


@dbus.service.method(MOCK_IFACE, in_signature="s", out_signature="a(ss)")
def GetRecord(self, path):
    return [(dbus.String(m), dbus.String(a)) for m, a in mockobject.objects[path].record]


@dbus.service.method(MOCK_IFACE, in_signature="sb", out_signature="")
def SetBusy(self, path, busy):
    """Claimed by another program (the reader busy): Claim answers AlreadyInUse until cleared;
    nobody's Release ends that claim."""
    mockobject.objects[path].busy = bool(busy)
