"""A python-dbusmock template for fprintd (net.reactivated.Fprint), which python-dbusmock 0.28
does not ship: the manager, and devices added with AddDevice(name, fingers). A verification
waits for a finger, as the reader does: QueueVerifyResult("verify-match" or "verify-no-match")
is the finger, answered with VerifyStatus(result, done=true) at once while a verification runs,
or when the next one starts."""
import dbus

from dbusmock import MOCK_IFACE, mockobject

SYSTEM_BUS = True
BUS_NAME = "net.reactivated.Fprint"
MAIN_OBJ = "/net/reactivated/Fprint/Manager"
MAIN_IFACE = "net.reactivated.Fprint.Manager"
DEVICE_IFACE = "net.reactivated.Fprint.Device"
ERROR = "net.reactivated.Fprint.Error."


def load(mock, parameters):
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
        ("Claim", "s", "", 'self.claimed = True'),
        ("Release", "", "", 'self.claimed = False'),
        ("VerifyStart", "s", "",
         'self.verifying = True\n'
         'if self.results:\n'
         '    self.verifying = False\n'
         '    self.EmitSignal("%s", "VerifyStatus", "sb", [self.results.pop(0), True])' % DEVICE_IFACE),
        ("VerifyStop", "", "", 'self.verifying = False'),
    ])
    obj = mockobject.objects[path]
    obj.fingers = list(fingers)
    obj.results = []
    obj.claimed = False
    obj.verifying = False
    obj.verify_starts = 0
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
