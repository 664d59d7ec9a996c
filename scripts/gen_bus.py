#!/usr/bin/env python3
"""passcoded's interface, written once: service/org.libpasscode.Passcode1.xml (D-Bus
introspection XML). From it this script writes

  * the sd-bus method table, Sources/passcoded/CPasscodeBus/passcode_bus_vtable.inc (passcode_bus.c
    includes it: SD_BUS_METHOD is a C macro);
  * passcoded's side, Sources/passcoded/Daemon/Passcode1.generated.swift: the protocol
    `Passcode1Handlers` with one requirement per method (its arguments typed, already read on the
    bus thread), Service's conformance to it (so a method without its handler does not build),
    and the dispatch from a member name to its handler;
  * the client's side, Sources/libpasscode/PasscodeBackend/ServiceClient+Passcode1.generated.swift: one typed
    stub per method (`callGetState()`, ...) that builds the call and reads its reply;
  * for a simple method (annotated org.libpasscode.Seam and org.libpasscode.Access: one core call
    on the caller's store, plain arguments, at most one reply value) both of its ends: the
    client's implementation of that seam requirement (it calls the stub) and passcoded's handler
    (it calls the PasscodeStore method of the same name, in withStoreForQuery or withStore); for
    one annotated org.libpasscode.Core instead, passcoded's handler only;
  * from the interface org.libpasscode.Passcode1.Store (the stores' properties): their C struct
    (Sources/passcoded/CPasscodeBus/include/passcode_bus_store.h), the sd-bus property table
    (passcode_bus_store.inc, included by passcode_bus_props.c), the properties as a reply answers
    them (passcoded's storePropertyValues) and the client's typed reader of PropertiesChanged
    (StoreProperties, in the client's generated file);
  * from the interface org.libpasscode.Hook1 (the host's hooks, which passcoded calls): the typed
    calls both ends use (HostQuestion, HostNotice, HookFlags, in Bus.generated.swift) and the
    client's reader of them (readHostHook);
  * from the interface's org.libpasscode.AppID (the app id's rule): Swift's AppID (Bus.generated.swift),
    which passcoded's dispatch makes of every call's app_id, and C's passcode_app_id_valid
    (Sources/pam_passcode/passcode_app_id.h, for pam_passcode and passcodectl);
  * passcode-service(3)'s list of the methods (docs/passcode-service.3.md, between its
    `bus-methods` markers);

and Sources/shared/PasscodeBus/Bus.generated.swift: the bus name, object path and interface of the XML,
and from Sources/libpasscode/Passcode/Status.swift (each status defined once, and the one mapping of
PasscodeError to a status) the statuses' numbers and D-Bus error names, for passcoded and the
client, which do not import the C ABI module.

usage: gen_bus.py            write the generated files (make header)
       gen_bus.py --check    regenerate into a temporary folder and diff; then check that every
                             client stub is called by the client, that every method has its
                             handler in passcoded, that every property is set by passcoded and read
                             by the client and every hook asked by passcoded and answered by the
                             client, and that every back-end requirement the client implements
                             reaches the bus or says `// bus: local (why)` (make check-bus)
       gen_bus.py --check-readme   passcode-service(3)'s method list is the one the XML gives (make check-docs)
Python 3 standard library only; needs no bus, no build and no root.
"""
import difflib
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
XML = ROOT / "service" / "org.libpasscode.Passcode1.xml"
STATUS_SWIFT = ROOT / "Sources" / "libpasscode" / "Passcode" / "Status.swift"
VTABLE = ROOT / "Sources" / "passcoded" / "CPasscodeBus" / "passcode_bus_vtable.inc"
DAEMON = ROOT / "Sources" / "passcoded" / "Daemon" / "Passcode1.generated.swift"
CLIENT = ROOT / "Sources" / "libpasscode" / "PasscodeBackend" / "ServiceClient+Passcode1.generated.swift"
STATUSES = ROOT / "Sources" / "shared" / "PasscodeBus" / "Bus.generated.swift"
STORE_TABLE = ROOT / "Sources" / "passcoded" / "CPasscodeBus" / "passcode_bus_store.inc"
STORE_HEADER = ROOT / "Sources" / "passcoded" / "CPasscodeBus" / "include" / "passcode_bus_store.h"
APP_ID_C = ROOT / "Sources" / "pam_passcode" / "passcode_app_id.h"
DAEMON_DIR = ROOT / "Sources" / "passcoded" / "Daemon"
BACKEND = ROOT / "Sources" / "libpasscode" / "PasscodeBackend"
FLOW = ROOT / "Sources" / "shared" / "PasscodeCore" / "Features" / "Flow.swift"
METHOD_PAGE = ROOT / "docs" / "passcode-service.3.md"  # the page that lists the methods
ANN = "org.libpasscode."
XML_NAME = "service/org.libpasscode.Passcode1.xml"

# passcoded's readers (Service, Sources/passcoded/Daemon) named by an argument's org.libpasscode.Read,
# and the Swift type each returns.
READERS = {"readSetting": "Setting", "readField": "String", "readRecoveryKey": "SecretBytes", "readDelays": "[Int64]"}
BASIC = {"b": ("Bool", "bool"), "i": ("Int32", "int32"), "u": ("UInt32", "uint32"), "x": ("Int64", "int64"),
         "t": ("UInt64", "uint64"), "s": ("String", "string")}
# A property's C field type (sd-bus's: 'b' is an int).
C_TYPE = {"b": "int32_t", "i": "int32_t", "u": "uint32_t", "x": "int64_t", "t": "uint64_t"}
ARGUMENT_CASE = {"s": "text", "i": "int32", "u": "uint32", "x": "int64", "b": "bool"}


def fail(message):
    sys.exit(f"gen_bus.py: {message}")


class Arg:
    def __init__(self, e, method):
        self.name = e.get("name")
        self.type = e.get("type")
        self.direction = e.get("direction") or ("in" if method else "out")
        self.ann = {a.get("name")[len(ANN):]: a.get("value") for a in e.findall("annotation")
                    if a.get("name", "").startswith(ANN)}
        if not self.name or not self.type:
            fail(f"an argument of {method} lacks a name or a type")

    @property
    def sensitive(self):
        return self.ann.get("Sensitive") == "true"

    @property
    def swift(self):
        return swift_name(self.name)


class Method:
    def __init__(self, e, doc):
        self.name = e.get("name")
        self.doc = doc
        self.ann = {a.get("name")[len(ANN):]: a.get("value") for a in e.findall("annotation")
                    if a.get("name", "").startswith(ANN)}
        args = [Arg(a, self.name) for a in e.findall("arg")]
        self.ins = [a for a in args if a.direction == "in"]
        self.outs = [a for a in args if a.direction == "out"]

    @property
    def sensitive(self):
        return any(a.sensitive for a in self.ins + self.outs)

    @property
    def has_stub(self):
        return not self.ann.get("Client", "").startswith("none")

    @property
    def handler(self):
        return "handle" + self.name

    def _core_call(self, key, by_hand):
        """(Swift function name, [argument labels]) of the org.libpasscode.KEY annotation (a
        PasscodeStore function the generated code calls with the method's arguments), or None."""
        value = self.ann.get(key)
        if not value:
            return None
        m = re.fullmatch(r"(\w+)(?:\(((?:\w+:)*)\))?", value)
        if not m:
            fail(f"{self.name}: org.libpasscode.{key} is a Swift function, `name` or `name(label:_:)`, not {value!r}")
        labels = re.findall(r"(\w+):", m.group(2) or "")
        if len(labels) != len(self.ins) - 1:
            fail(f"{self.name}: org.libpasscode.{key} {value} takes {len(labels)} arguments, the method {len(self.ins) - 1} after app_id")
        if len(self.outs) > 1:
            fail(f"{self.name}: a method with org.libpasscode.{key} answers at most one value (write {by_hand} by hand)")
        if self.ann.get("Access") not in ("query", "write"):
            fail(f"{self.name}: a method with org.libpasscode.{key} says org.libpasscode.Access, query or write")
        return m.group(1), labels

    @property
    def seam(self):
        """(Swift function name, [argument labels]) of a simple method's seam requirement, or None."""
        call = self._core_call("Seam", "its ends")
        if call and not self.has_stub:
            fail(f"{self.name}: a method with org.libpasscode.Seam is called by the client (no org.libpasscode.Client none)")
        return call

    @property
    def core(self):
        """(PasscodeStore function name, [argument labels]) a generated handler calls: the Seam's
        (both ends generated) or the Core's (passcoded's handler only), or None."""
        return self.seam or self._core_call("Core", "its handler")

    @property
    def generated_handler(self):
        return self.core is not None

    @property
    def stub(self):
        return "call" + self.name


def swift_name(snake):
    parts = snake.split("_")
    out = parts[0]
    for p in parts[1:]:
        out += "ID" if p == "id" else p[:1].upper() + p[1:]
    return out


def annotations(e):
    return {a.get("name")[len(ANN):]: a.get("value") for a in e.findall("annotation")
            if a.get("name", "").startswith(ANN)}


def comment_text(e):
    return " ".join(line.strip() for line in (e.text or "").strip().splitlines())


def camel_to_snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Property:
    """A property of org.libpasscode.Passcode1.Store: its C field (snake case) and Swift name."""
    def __init__(self, e, doc):
        self.name = e.get("name")
        self.type = e.get("type")
        self.doc = doc
        if not self.name or self.type not in C_TYPE:
            fail(f"property {self.name}: a name and one of the types {', '.join(C_TYPE)}")
        if e.get("access") != "read":
            fail(f"property {self.name}: the store's properties are read-only (access=\"read\")")
        self.field = camel_to_snake(self.name)
        self.swift = swift_name(self.field)


class Hook:
    """A method of org.libpasscode.Hook1 (passcoded asks the host)."""
    def __init__(self, e, doc):
        self.name = e.get("name")
        self.doc = doc
        self.ann = annotations(e)
        args = [Arg(a, self.name) for a in e.findall("arg")]
        self.ins = [a for a in args if a.direction == "in"]
        self.outs = [a for a in args if a.direction == "out"]
        self.answered = not any(a.get("name") == "org.freedesktop.DBus.Method.NoReply" and a.get("value") == "true"
                                for a in e.findall("annotation"))
        flag = re.fullmatch(r"(\w+)=(\d+)", self.ann.get("Flag", ""))
        if not flag:
            fail(f"hook {self.name}: org.libpasscode.Flag is `name=bit`, the HookFlags constant and its value")
        self.flag, self.bit = flag.group(1), int(flag.group(2))
        self.field = self.ann.get("Hook")
        if not self.field:
            fail(f"hook {self.name}: org.libpasscode.Hook names the field of Hooks it stands in for")
        if self.answered and [(a.name, a.type) for a in self.outs] != [("refusal", "s")]:
            fail(f"hook {self.name}: a hook that answers answers (refusal s): \"\" allows")
        if not self.answered and self.outs:
            fail(f"hook {self.name}: a notification (NoReply) answers nothing")
        for a in self.ins:
            if a.type not in ("s", "i"):
                fail(f"hook {self.name}: argument {a.name} is {a.type}; a hook's arguments are s or i")

    @property
    def case(self):
        return self.name[:1].lower() + self.name[1:]


class Model:
    pass


def load_model(path=XML):
    """The XML's three interfaces, its comments kept as docs."""
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    root = ET.parse(path, parser=parser).getroot()
    interfaces = {i.get("name"): i for i in root.findall("interface")}
    iface = root.find("interface")
    methods = []
    doc = None
    section = 0
    for e in iface:
        if e.tag is ET.Comment:
            text = comment_text(e)
            doc = None if text.startswith("====") else text
            section += text.startswith("====")
            continue
        if e.tag == "method":
            methods.append(Method(e, doc))
            methods[-1].section = section
        elif e.tag == "annotation":
            pass
        elif e.tag in ("property", "signal"):
            fail(f"{e.tag} {e.get('name')}: the methods' interface has methods only (properties are the Store interface's)")
        doc = None
    names = [m.name for m in methods]
    if len(set(names)) != len(names):
        fail("a method is defined twice")
    main_ann = annotations(iface)
    bus = main_ann.get("BusName")
    if not bus:
        fail("the interface lacks its org.libpasscode.BusName annotation (the well-known name)")
    model = Model()
    model.names = (iface.get("name"), root.get("name"), bus)
    model.methods = methods
    rule = re.fullmatch(r"\[([^\]]+)\]\[([^\]]+)\]\{0,(\d+)\}", main_ann.get("AppID", ""))
    if not rule:
        fail("the interface lacks its org.libpasscode.AppID, `[first][rest]{0,N}` (N+1 the most bytes)")
    model.app_id = (char_class(rule.group(1)), char_class(rule.group(2)), int(rule.group(3)) + 1, main_ann["AppID"])
    store = interfaces.get(iface.get("name") + ".Store")
    hooks = [i for n, i in interfaces.items() if n.startswith("org.libpasscode.Hook")]
    if store is None or len(hooks) != 1:
        fail(f"{XML_NAME} defines {iface.get('name')}.Store (the stores' properties) and one org.libpasscode.Hook<N> (the host's hooks)")
    model.store_interface = store.get("name")
    model.store_prefix, model.properties = property_interface(store)
    # The login stores' objects, read by uid (a greeter, a screen locker): a second property table.
    login = interfaces.get(iface.get("name") + ".Login")
    if login is None:
        fail(f"{XML_NAME} defines {iface.get('name')}.Login (a user's login store's properties, read by uid)")
    model.login_interface = login.get("name")
    model.login_prefix, model.login_properties = property_interface(login)
    model.hook_interface = hooks[0].get("name")
    model.hook_path = annotations(hooks[0]).get("ObjectPath") or fail("the hooks' interface lacks its org.libpasscode.ObjectPath")
    model.hooks, doc = [], None
    for e in hooks[0]:
        if e.tag is ET.Comment:
            doc = comment_text(e)
            continue
        if e.tag == "method":
            model.hooks.append(Hook(e, doc))
        elif e.tag in ("property", "signal"):
            fail(f"{e.tag} {e.get('name')}: the hooks' interface has methods only")
        doc = None
    for what, values in (("name", [h.name for h in model.hooks]), ("flag", [h.flag for h in model.hooks]),
                         ("bit", [h.bit for h in model.hooks]), ("Hooks field", [h.field for h in model.hooks])):
        if len(set(values)) != len(values):
            fail(f"two hooks share a {what}")
    if any(h.bit & (h.bit - 1) or not h.bit for h in model.hooks):
        fail("a hook's flag is one bit")
    # A method that answers a store's properties (org.libpasscode.Properties) answers them all,
    # in their order and types, after its first out argument (the object's path).
    tables = {model.store_interface: model.properties, model.login_interface: model.login_properties}
    for m in methods:
        if "Properties" not in m.ann:
            continue
        if m.ann["Properties"] not in tables:
            fail(f"{m.name}: org.libpasscode.Properties names {m.ann['Properties']}, not an interface of properties "
                 f"({', '.join(tables)})")
        outs = [(a.name, a.type) for a in m.outs[1:]]
        want = [(p.field, p.type) for p in tables[m.ann["Properties"]]]
        if [t for _, t in outs] != [t for _, t in want]:
            fail(f"{m.name} answers, after its path, the properties of {m.ann['Properties']} in order "
                 f"(org.libpasscode.Properties): its out arguments are {' '.join(n + ' ' + t for n, t in outs)}, "
                 f"the properties {' '.join(n + ' ' + t for n, t in want)}")
    return model


def property_interface(e):
    """(ObjectPrefix, [Property]) of an interface of read-only properties."""
    prefix = annotations(e).get("ObjectPrefix") or fail(f"{e.get('name')} lacks its org.libpasscode.ObjectPrefix")
    properties, doc = [], None
    for c in e:
        if c.tag is ET.Comment:
            doc = comment_text(c)
            continue
        if c.tag == "property":
            properties.append(Property(c, doc))
        elif c.tag in ("method", "signal"):
            fail(f"{c.tag} {c.get('name')}: {e.get('name')} has properties only")
        doc = None
    if len({p.name for p in properties}) != len(properties):
        fail(f"a property of {e.get('name')} is defined twice")
    return prefix, properties


def char_class(text):
    """The bytes of a regular expression's character class such as `A-Za-z0-9._-`."""
    out, i = set(), 0
    while i < len(text):
        if i + 2 < len(text) and text[i + 1] == "-":
            out |= set(range(ord(text[i]), ord(text[i + 2]) + 1))
            i += 3
        else:
            out.add(ord(text[i]))
            i += 1
    return sorted(out)


def load(path=XML):
    """((interface, object path, bus name), [Method]) of the XML."""
    model = load_model(path)
    return model.names, model.methods


def wrap(text, indent, width=100):
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(indent) + len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return [indent + l for l in lines]


def banner(comment, source=XML_NAME):
    return f"{comment} GENERATED by scripts/gen_bus.py from {source} (`make header`); do not edit."


# ---- (a) the sd-bus vtable ----

def vtable(names, methods):
    interface, path, _ = names
    out = [banner("//"), f'#define PASSCODE_BUS_PATH "{path}"', f'#define PASSCODE_BUS_INTERFACE "{interface}"', "",
           "// The method table of org.libpasscode.Passcode1, included by passcode_bus.c (on_call: every",
           "// method goes to passcoded's one handler, which dispatches on the member's name).",
           "static const sd_bus_vtable passcode_vtable[] = {", "    SD_BUS_VTABLE_START(0),"]
    for m in methods:
        if m.doc:
            out += wrap(m.doc, "    // ")
        sig_in = "".join(a.type for a in m.ins)
        sig_out = "".join(a.type for a in m.outs)
        names_in = " ".join(f"SD_BUS_PARAM({a.name})" for a in m.ins) or '""'
        names_out = " ".join(f"SD_BUS_PARAM({a.name})" for a in m.outs) or '""'
        out.append(f'    SD_BUS_METHOD_WITH_NAMES("{m.name}", "{sig_in}", {names_in},')
        out.append(f'                             "{sig_out}", {names_out},')
        out.append("                             on_call, SD_BUS_VTABLE_UNPRIVILEGED),")
    out += ["    SD_BUS_VTABLE_END", "};", ""]
    return "\n".join(out)


# ---- (a') the stores' properties in C: their struct and sd-bus property table ----

def store_header(model):
    out = [banner("//"),
           f"// The properties of {model.store_interface} as passcoded keeps one store's: one field per",
           "// property, in the XML's order, of sd-bus's C type (a 'b' is an int32_t). passcode_bus_props.h",
           "// includes it; passcoded's Swift fills it (Service+Properties.swift).",
           "#ifndef PASSCODE_BUS_STORE_H", "#define PASSCODE_BUS_STORE_H", "", "#include <stdint.h>", "",
           f'#define PASSCODE_BUS_STORE_PREFIX "{model.store_prefix}"',
           f'#define PASSCODE_BUS_STORE_INTERFACE "{model.store_interface}"', "",
           "typedef struct passcode_bus_props {"]
    for prop in model.properties:
        out += wrap(f"{prop.name} ({prop.type})" + (f": {prop.doc}" if prop.doc else ""), "    /// ")
        out.append(f"    {C_TYPE[prop.type]} {prop.field};")
    out += ["} passcode_bus_props;", "",
            f"// The properties of {model.login_interface}: a user's login store, read by uid (one object",
            "// per uid and login store under the prefix; passcoded's Swift fills it, Service+Login.swift).",
            f'#define PASSCODE_BUS_LOGIN_PREFIX "{model.login_prefix}"',
            f'#define PASSCODE_BUS_LOGIN_INTERFACE "{model.login_interface}"', "",
            "typedef struct passcode_bus_login_props {"]
    for prop in model.login_properties:
        out += wrap(f"{prop.name} ({prop.type})" + (f": {prop.doc}" if prop.doc else ""), "    /// ")
        out.append(f"    {C_TYPE[prop.type]} {prop.field};")
    out += ["} passcode_bus_login_props;", "", "#endif", ""]
    return "\n".join(out)


def store_table(model):
    enum = [f"PASSCODE_PROP_{p.field.upper()}" for p in model.properties]
    out = [banner("//"),
           f"// The property table of {model.store_interface}, included by passcode_bus_props.c (after",
           "// its getter, get_prop, is declared): the properties' names and types, how each is appended",
           "// from passcode_bus_props, and the sd-bus vtable of the stores' objects. Read-only.",
           "enum { " + ", ".join(enum) + ", PASSCODE_PROP_COUNT };", "",
           "static const struct { const char *name, *type; } props[PASSCODE_PROP_COUNT] = {"]
    for e, prop in zip(enum, model.properties):
        out.append(f'    [{e}] = {{"{prop.name}", "{prop.type}"}},')
    out += ["};", "", "static int append_prop(sd_bus_message *m, int which, const passcode_bus_props *p) {", "    switch (which) {"]
    for e, prop in zip(enum, model.properties):
        value = f"p->{prop.field} != 0" if prop.type == "b" else f"p->{prop.field}"
        out.append(f'    case {e}: return sd_bus_message_append(m, "{prop.type}", {value});')
    out += ["    default: return -EINVAL;", "    }", "}", "",
            "static const sd_bus_vtable store_vtable[] = {", "    SD_BUS_VTABLE_START(0),"]
    for prop in model.properties:
        out.append(f'    SD_BUS_PROPERTY("{prop.name}", "{prop.type}", get_prop, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),')
    out += ["    SD_BUS_VTABLE_END", "};", ""]
    # The login objects' table: the same shape, its own names (get_login_prop, login_vtable).
    enum = [f"PASSCODE_LOGIN_PROP_{p.field.upper()}" for p in model.login_properties]
    out += [f"// The property table of {model.login_interface} (a user's login store, read by uid).",
            "enum { " + ", ".join(enum) + ", PASSCODE_LOGIN_PROP_COUNT };", "",
            "static const struct { const char *name, *type; } login_props[PASSCODE_LOGIN_PROP_COUNT] = {"]
    for e, prop in zip(enum, model.login_properties):
        out.append(f'    [{e}] = {{"{prop.name}", "{prop.type}"}},')
    out += ["};", "", "static int append_login_prop(sd_bus_message *m, int which, const passcode_bus_login_props *p) {",
            "    switch (which) {"]
    for e, prop in zip(enum, model.login_properties):
        value = f"p->{prop.field} != 0" if prop.type == "b" else f"p->{prop.field}"
        out.append(f'    case {e}: return sd_bus_message_append(m, "{prop.type}", {value});')
    out += ["    default: return -EINVAL;", "    }", "}", "",
            "static const sd_bus_vtable login_vtable[] = {", "    SD_BUS_VTABLE_START(0),"]
    for prop in model.login_properties:
        out.append(f'    SD_BUS_PROPERTY("{prop.name}", "{prop.type}", get_login_prop, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),')
    out += ["    SD_BUS_VTABLE_END", "};", ""]
    return "\n".join(out)


# ---- (b) passcoded's protocol and dispatch ----

def daemon_read(a):
    """(Swift type, expression reading `a` from the message `m`) for passcoded."""
    q = f'"{a.name}"'
    if a.name == "app_id" and a.type == "s":
        # Read as text in its place; made an AppID (the one rule) once every argument is read.
        return "AppID", f"try readString(m, {q})"
    if "Read" in a.ann:
        reader = a.ann["Read"]
        if reader not in READERS:
            fail(f"argument {a.name}: no reader {reader} (known: {', '.join(READERS)})")
        return READERS[reader], f"try {reader}(m, {q})"
    if a.type == "s" and a.sensitive:
        extra = ", mayBeEmpty: true" if a.ann.get("MayBeEmpty") == "true" else ""
        return "SecretBytes", f"try readSecret(m, {q}{extra})"
    if a.type == "ay" and a.sensitive:
        return "SecretBytes", f"try readSecretBytes(m, {q})"
    if a.type == "s":
        return "String", f"try readString(m, {q})"
    if a.type == "b":
        return "Bool", f'try readBasic(m, "b", Int32(0), {q}) != 0'
    if a.type in BASIC:
        t = BASIC[a.type][0]
        return t, f'try readBasic(m, "{a.type}", {t}(0), {q})'
    fail(f"argument {a.name}: no reader for the type {a.type} (add an org.libpasscode.Read)")


def signature_doc(m):
    ins = ", ".join(f"{a.name} {a.type}" for a in m.ins)
    outs = ", ".join(f"{a.name} {a.type}" for a in m.outs)
    return f"{m.name}({ins})" + (f" -> ({outs})" if outs else "")


def daemon(methods, model=None):
    out = [banner("//"),
           "// passcoded's side of org.libpasscode.Passcode1: one handler per method, each given its",
           "// arguments already read (on the bus thread, by `dispatchPasscode1`); Service conforms in",
           "// the files Service+<Area>.swift, so a method without its handler does not build.",
           "import CPasscodeBus", "import Glibc", "import PasscodeBus", "import PasscodeCore", "",
           "/// One call as passcoded received it: its message (valid on the bus thread, while the handler",
           "/// prepares the work) and the caller's uid, from the bus.",
           "struct BusCall {", "    let message: OpaquePointer", "    let caller: uid_t", "}", "",
           "/// The methods of org.libpasscode.Passcode1. Each handler runs on the bus thread with its",
           "/// arguments read (the app id checked: an `AppID`), and returns the work (`Service.Prepared`)",
           "/// that runs on a worker and the values of its reply, in the order of the XML's out arguments.",
           "protocol Passcode1Handlers {"]
    for m in methods:
        out += wrap(signature_doc(m) + (": " + m.doc if m.doc else ""), "    /// ")
        params = "".join(f", {a.swift}: {daemon_read(a)[0]}" for a in m.ins)
        out.append(f"    func {m.handler}(_ call: BusCall{params}) throws -> Service.Prepared")
    out += ["}", "", "extension Service: Passcode1Handlers {", "    /// The call `member`, its arguments read and handed to its handler; nil when the interface",
            "    /// has no such method.",
            "    func dispatchPasscode1(_ member: String, _ m: OpaquePointer, caller: uid_t) throws -> Prepared? {",
            "        switch member {"]
    for m in methods:
        out.append(f'        case "{m.name}":')
        app = [a for a in m.ins if a.name == "app_id"]
        if len(app) != 1 or app[0].type != "s":
            fail(f"{m.name}: every method takes one app_id ('s')")
        for a in m.ins:
            name = a.swift + "Text" if a is app[0] else a.swift
            out.append(f"            let {name} = {daemon_read(a)[1]}")
        # The app id admitted for its caller: the rule, and a sandboxed caller's own (Service+Sandbox.swift).
        out.append(f"            let appID = try admit(appIDText, m, caller: caller)")
        args = "".join(f", {a.swift}: {a.swift}" for a in m.ins)
        out.append(f"            return try {m.handler}(BusCall(message: m, caller: caller){args})")
    out += ["        default:", "            return nil", "        }", "    }", "}"]
    if [m for m in methods if m.generated_handler]:
        out += seam_daemon(methods)
    else:
        out.append("")
    if model is not None:
        out += daemon_store(model)
    return "\n".join(out)


def daemon_store(model):
    """The properties as a reply answers them (a method with org.libpasscode.Properties)."""
    value = {"b": lambda f: f".bool(p.{f} != 0)", "i": lambda f: f".int32(p.{f})", "u": lambda f: f".uint32(p.{f})",
             "x": lambda f: f".int64(p.{f})", "t": lambda f: f".uint64(p.{f})"}
    answering = [m.name for m in model.methods if m.ann.get("Properties") == model.store_interface]
    out = ["", f"extension Service {{",
           f"    /// The properties of {model.store_interface} in the XML's order, as the reply of a method",
           f"    /// that answers them ({', '.join(answering) or 'none'}: org.libpasscode.Properties) carries them.",
           "    static func storePropertyValues(_ p: passcode_bus_props) -> [Value] {",
           "        [" + ",\n         ".join(value[prop.type](prop.field) for prop in model.properties) + "]",
           "    }", ""]
    answering = [m.name for m in model.methods if m.ann.get("Properties") == model.login_interface]
    out += [f"    /// The properties of {model.login_interface} in the XML's order, as the reply of a method",
            f"    /// that answers them ({', '.join(answering) or 'none'}: org.libpasscode.Properties) carries them.",
            "    static func loginPropertyValues(_ p: passcode_bus_login_props) -> [Value] {",
            "        [" + ",\n         ".join(value[prop.type](prop.field) for prop in model.login_properties) + "]",
            "    }", "}", ""]
    return out


# ---- (c) the client's stubs ----

def client_in(a):
    """(Swift parameter type, BusArgument expression) for an in argument on the client."""
    if a.type == "s" and a.sensitive:
        return "SecretBytes", f".secret({a.swift})"
    if a.type == "ay" and a.sensitive:
        return "SecretBytes", f".secretBytes({a.swift})"
    if a.type == "au":
        return "[UInt32]", f".uint32s({a.swift})"
    if a.type in ARGUMENT_CASE:
        return BASIC[a.type][0], f".{ARGUMENT_CASE[a.type]}({a.swift})"
    fail(f"argument {a.name}: the client cannot send the type {a.type}")


def struct_fields(sig):
    """The single-letter fields of a struct signature '(ixs)'."""
    inner = sig[1:-1]
    if not re.fullmatch(r"[biuxs]+", inner):
        fail(f"the client reads structs of b, i, u, x and s only, not {sig}")
    return list(inner)


def client_out(a, reader="r"):
    """(Swift type, [lines reading it into `let <name>`]) for an out argument on the client."""
    enum = a.ann.get("Type")
    if a.type == "ay" and a.sensitive:
        return "SecretBytes", [f"let {a.swift} = try {reader}.key()"]
    if a.type in BASIC:
        t, fn = BASIC[a.type]
        if enum:
            return enum, [f"guard let {a.swift} = {enum}(checked: try {reader}.{fn}()) else {{ throw {reader}.unexpected() }}"]
        return t, [f"let {a.swift} = try {reader}.{fn}()"]
    if a.type.startswith("a(") and a.type.endswith(")"):
        fields = struct_fields(a.type[1:])
        kinds = (enum or "").split(",") if enum else [""] * len(fields)
        if len(kinds) != len(fields):
            fail(f"{a.name}: org.libpasscode.Type names {len(kinds)} fields, the struct has {len(fields)}")
        types, lines = [], []
        for i, (f, k) in enumerate(zip(fields, kinds)):
            t, fn = BASIC[f]
            if k:
                lines.append(f"guard let f{i} = {k}(checked: try e.{fn}()) else {{ throw e.unexpected() }}")
                types.append(k)
            else:
                lines.append(f"let f{i} = try e.{fn}()")
                types.append(t)
        tuple_type = "[(" + ", ".join(types) + ")]"
        body = [f"var {a.swift}: {tuple_type} = []",
                f'try {reader}.array("{a.type[1:]}") {{ (e) throws(PasscodeError) in'] + ["    " + l for l in lines] + \
               [f"    {a.swift}.append((" + ", ".join(f"f{i}" for i in range(len(fields))) + "))", "}"]
        return tuple_type, body
    fail(f"{a.name}: the client cannot read the type {a.type}")


def client(methods):
    out = [banner("//"),
           "// The client's side of org.libpasscode.Passcode1: one stub per method, which builds the call",
           "// (app_id first, from the handle) and reads its reply. `make check-bus` fails when a stub is",
           "// never called by the client. Then the typed readers of the stores' properties and of the",
           "// host's hooks passcoded calls.",
           "import PasscodeBus", "import PasscodeCore", "", "extension ServiceClient {"]
    first = True
    for m in methods:
        if not m.has_stub:
            continue
        if not m.ins or m.ins[0].name != "app_id" or m.ins[0].type != "s":
            fail(f"{m.name}: a method the client calls takes app_id ('s') first")
        if not first:
            out.append("")
        first = False
        ins = m.ins[1:]
        outs = [(a, client_out(a)) for a in m.outs]
        out += wrap(signature_doc(m) + (": " + m.doc if m.doc else ""), "    /// ")
        params = ", ".join(f"{a.swift}: {client_in(a)[0]}" for a in ins)
        if not outs:
            ret = ""
        elif len(outs) == 1:
            ret = f" -> {outs[0][1][0]}"
        else:
            ret = " -> (" + ", ".join(f"{a.swift}: {t}" for a, (t, _) in outs) + ")"
        out.append(f"    func {m.stub}({params}) throws(PasscodeError){ret} {{")
        arguments = "[" + ", ".join(client_in(a)[1] for a in ins) + "]"
        if not outs:
            out.append(f'        try call("{m.name}", {arguments}) {{ _ in }}')
        else:
            holder = ret[4:]
            out.append(f"        var answer: {holder}?")
            out.append(f'        try call("{m.name}", {arguments}) {{ (r) throws(PasscodeError) in')
            for a, (_, lines) in outs:
                out += ["            " + l for l in lines]
            value = outs[0][0].swift if len(outs) == 1 else "(" + ", ".join(f"{a.swift}" for a, _ in outs) + ")"
            out.append(f"            answer = {value}")
            out.append("        }")
            out.append("        return answer!")
        out.append("    }")
    out += ["}"]
    if seam_methods(methods):
        out += seam_client(methods)
    else:
        out.append("")
    return "\n".join(out)


def client_store(model):
    """The client's typed reader of the stores' PropertiesChanged."""
    out = ["", f"/// The properties of {model.store_interface} one PropertiesChanged carried, each of its",
           "/// type in the XML (nil: not in that signal).",
           "struct StoreProperties {"]
    for prop in model.properties:
        out += wrap(f"{prop.name} ({prop.type})" + (f": {prop.doc}" if prop.doc else ""), "    /// ")
        out.append(f"    var {prop.swift}: {BASIC[prop.type][0]}?")
    out += ["}", "", "extension PushedCache {",
            "    /// PropertiesChanged's (s interface, a{sv} changed, as invalidated): the changed properties of",
            "    /// the store interface; nil when the message is not that (a known property of another type",
            "    /// included). A property this library does not know is skipped.",
            "    static func readStoreProperties(_ m: OpaquePointer, _ bus: SdBusLibrary, _ calls: SdBusCacheCalls) -> StoreProperties? {",
            "        var iface: UnsafePointer<CChar>?",
            '        guard bus.readBasic(m, CChar(UInt8(ascii: "s")), &iface) > 0, let iface, String(cString: iface) == BusNames.storeInterface,',
            '              bus.enterContainer(m, CChar(UInt8(ascii: "a")), "{sv}") > 0 else { return nil }',
            "        var properties = StoreProperties()",
            "        while true {",
            '            let r = bus.enterContainer(m, CChar(UInt8(ascii: "e")), "sv")',
            "            if r == 0 { break }",
            "            guard r > 0 else { return nil }",
            "            var name: UnsafePointer<CChar>?",
            '            guard bus.readBasic(m, CChar(UInt8(ascii: "s")), &name) > 0, let name else { return nil }',
            "            switch String(cString: name) {"]
    for prop in model.properties:
        out.append(f'            case "{prop.name}":')
        if prop.type == "b":
            out.append(f'                guard let value = variant(m, bus, "b", Int32(0)) else {{ return nil }}')
            out.append(f"                properties.{prop.swift} = value != 0")
        else:
            t = BASIC[prop.type][0]
            out.append(f'                guard let value = variant(m, bus, "{prop.type}", {t}(0)) else {{ return nil }}')
            out.append(f"                properties.{prop.swift} = value")
    out += ["            default:",
            '                guard calls.skip(m, "v") >= 0 else { return nil }',
            "            }",
            "            guard bus.exitContainer(m) > 0 else { return nil }",
            "        }",
            "        guard bus.exitContainer(m) > 0 else { return nil }",
            "        return properties",
            "    }", "",
            "    /// One variant's value of the basic type `type`; nil when it holds another.",
            "    private static func variant<T>(_ m: OpaquePointer, _ bus: SdBusLibrary, _ type: String, _ initial: T) -> T? {",
            '        guard bus.enterContainer(m, CChar(UInt8(ascii: "v")), type) > 0 else { return nil }',
            "        var value = initial",
            "        guard withUnsafeMutableBytes(of: &value, { bus.readBasic(m, CChar(type.utf8.first!), $0.baseAddress) }) > 0,",
            "              bus.exitContainer(m) > 0 else { return nil }",
            "        return value",
            "    }", "}", ""]
    return out


def client_hooks(model):
    """The client's reader of passcoded's calls to the host's hooks: the typed call."""
    out = [f"/// A call of passcoded to the host's hooks ({model.hook_interface}), read.",
           "enum HostHookCall {",
           "    /// A hook the host answers.",
           "    case ask(HostQuestion)",
           "    /// A notification.",
           "    case tell(HostNotice)",
           "    /// No such method.",
           "    case unknown",
           "    /// Its arguments are not the method's.",
           "    case badArguments",
           "}", "",
           "extension ServiceClient {",
           "    /// The hook call `member` of `m`, its arguments read.",
           "    func readHostHook(_ m: OpaquePointer, member: String) -> HostHookCall {",
           "        switch member {"]
    for h in model.hooks:
        out.append(f'        case "{h.name}":')
        if h.ins:
            reads = ", ".join(f"let {a.swift} = {'hookText' if a.type == 's' else 'hookInt32'}(m)" for a in h.ins)
            out.append(f"            guard {reads} else {{ return .badArguments }}")
        args = ", ".join(f"{a.swift}: {a.swift}" for a in h.ins)
        kind = "ask" if h.answered else "tell"
        out.append(f"            return .{kind}(.{h.case}" + (f"({args})" if args else "") + ")")
    out += ["        default:", "            return .unknown", "        }", "    }", "}", ""]
    return out


# ---- (d) both ends of the simple methods (org.libpasscode.Seam) ----

WIRE_VALUE = {"b": "bool", "i": "int32", "u": "uint32", "x": "int64", "s": "string"}


def seam_type(a, wire_type):
    """The Swift type the seam and the core use for `a`: its org.libpasscode.SeamType (an integer
    type converted with clamping) or the wire's."""
    t = a.ann.get("SeamType")
    if t and a.type not in ("i", "u", "x"):
        fail(f"argument {a.name}: org.libpasscode.SeamType converts integers only")
    return t or wire_type


def convert(expr, to, frm):
    """`expr` of Swift type `frm` as `to` (integers clamped)."""
    if to == frm:
        return expr
    return f"{to}(clamping: {expr})" if to != "Int" else f"Int({expr})"


def seam_methods(methods):
    return [m for m in methods if m.seam]


def seam_daemon(methods):
    out = ["", "// The generated handlers (org.libpasscode.Seam or org.libpasscode.Core): each runs the one core",
           "// call the XML names on the caller's store, a query (withStoreForQuery: the blank store when the",
           "// app id has none) or a write (withStore), and answers its value, if any.",
           "extension Service {"]
    for m in methods:
        if not m.generated_handler:
            continue
        name, labels = m.core
        params = "".join(f", {a.swift}: {daemon_read(a)[0]}" for a in m.ins[1:])
        args = ", ".join((f"{l}: " if l != "_" else "") + convert(a.swift, seam_type(a, daemon_read(a)[0]), daemon_read(a)[0])
                         for l, a in zip(labels, m.ins[1:]))
        body = f"try $0.{name}({args})"
        access = "withStoreForQuery" if m.ann["Access"] == "query" else "withStore"
        out.append(f"    func {m.handler}(_ call: BusCall, appID app: AppID{params}) throws -> Prepared {{")
        out.append("        let stores = self.stores, caller = call.caller")
        out.append("        return Prepared(uid: caller) {")
        if m.outs:
            a = m.outs[0]
            if a.type == "ay" and a.sensitive:
                value = f".key({body})"
            elif a.type in WIRE_VALUE and "Type" not in a.ann:
                wire = BASIC[a.type][0]
                value = f".{WIRE_VALUE[a.type]}({convert(body, wire, seam_type(a, wire))})"
            else:
                fail(f"{m.name}: a generated handler answers b, i, u, x, s or a sensitive ay (the data key)")
            out.append(f"            try stores.{access}(uid: caller, appID: app) {{ [{value}] }}")
        else:
            # Whatever the core call answers is not the method's (its reply is empty).
            out.append(f"            try stores.{access}(uid: caller, appID: app) {{ _ = {body} }}")
            out.append("            return []")
        out.append("        }")
        out.append("    }")
        out.append("")
    out[-1] = "}"
    return out + [""]


def seam_client(methods):
    out = ["", "// The client's implementation of the simple methods' seam requirements (org.libpasscode.Seam):",
           "// each carries its call as it is, to the handler that runs the same core call in passcoded.",
           "extension ServiceClient {"]
    for m in seam_methods(methods):
        name, labels = m.seam
        params = ", ".join(f"{l} {a.swift}: {seam_type(a, client_in(a)[0])}" if l == "_" else
                           (f"{l}: {seam_type(a, client_in(a)[0])}" if l == a.swift else f"{l} {a.swift}: {seam_type(a, client_in(a)[0])}")
                           for l, a in zip(labels, m.ins[1:]))
        args = ", ".join(f"{a.swift}: {convert(a.swift, client_in(a)[0], seam_type(a, client_in(a)[0]))}" for a in m.ins[1:])
        call = f"try {m.stub}({args})"
        if m.outs:
            a = m.outs[0]
            wire = BASIC[a.type][0]
            t = seam_type(a, wire)
            out.append(f"    package func {name}({params}) throws(PasscodeError) -> {t} {{")
            out.append(f"        {convert(call, t, wire)}")
        else:
            out.append(f"    package func {name}({params}) throws(PasscodeError) {{")
            out.append(f"        {call}")
        out.append("    }")
        out.append("")
    out[-1] = "}"
    return out + [""]


# ---- passcode-service(3)'s list of the methods ----

LIST_BEGIN = "<!-- bus-methods: written by scripts/gen_bus.py from service/org.libpasscode.Passcode1.xml (make header) -->"
LIST_END = "<!-- /bus-methods -->"


def readme_list(methods, sections):
    """The methods as METHOD_PAGE lists them: `Name` and its org.libpasscode.Readme note; the XML's
    sections (its ==== comments) apart by semicolons."""
    groups = {}
    for m in methods:
        entry = f"`{m.name}`" + (f" {m.ann['Readme']}" if m.ann.get("Readme") else "")
        groups.setdefault(sections[m.name], []).append(entry)
    text = "; ".join(", ".join(g) for g in groups.values()) + "."
    return "\n".join(wrap(text, ""))


def readme_text(methods, sections, text=None):
    text = METHOD_PAGE.read_text() if text is None else text
    begin, end = text.find(LIST_BEGIN), text.find(LIST_END)
    if begin < 0 or end < begin:
        fail(f"{METHOD_PAGE.relative_to(ROOT)}: the markers {LIST_BEGIN} and {LIST_END} of the D-Bus method list not found")
    # The end marker ends the list's last line: a comment opening a line would end the paragraph.
    return text[:begin + len(LIST_BEGIN)] + "\n" + readme_list(methods, sections) + " " + text[end:]


# ---- the statuses, for both sides of the bus ----

def statuses(model):
    interface, path, bus = model.names
    text = STATUS_SWIFT.read_text()
    enum = re.search(r"public enum Status: Int32 \{(.*?)\n\}", text, re.S)
    mapping = re.search(r"var status: Status \{\s*switch self \{(.*?)\n        \}", text, re.S)
    if not enum or not mapping:
        fail("Sources/libpasscode/Passcode/Status.swift: the Status enum or PasscodeError.status not found")
    cases = re.findall(r"^\s*case (\w+) = (-?\d+)", enum.group(1), re.M)
    numbers = {c: int(v) for c, v in cases}
    pairs = re.findall(r"case \.(\w+)(?:\([^)]*\))?: return \.(\w+)", mapping.group(1))
    if not cases or not pairs:
        fail("Sources/libpasscode/Passcode/Status.swift: no statuses or no mapping read")

    def bus_name(case):
        return case[3:] if case.startswith("err") else case[:1].upper() + case[1:]

    src = "Sources/libpasscode/Passcode/Status.swift"
    out = [banner("//", f"{XML_NAME} and {src}"),
           "// The statuses as both sides of the bus name them: each status's number (Status.swift's",
           "// `Status`, the C ABI's `passcode_status`) and its D-Bus error name, and PasscodeError's status",
           "// (Status.swift's one mapping), for passcoded and the client, which do not import the C ABI.",
           "import PasscodeCore", "",
           f"/// The names of {XML_NAME}.",
           "public enum BusNames {",
           "    /// The well-known name passcoded owns on the system bus.",
           f'    public static let name = "{bus}"',
           "    /// The object of the service's methods.",
           f'    public static let path = "{path}"',
           "    /// The interface of the service's methods.",
           f'    public static let interface = "{interface}"',
           "    /// The interface of the stores' objects: their properties.",
           f'    public static let storeInterface = "{model.store_interface}"',
           "    /// The path below which each store of the caller's uid is an object (its app id, sd_bus_path_encode'd).",
           f'    public static let storePrefix = "{model.store_prefix}"',
           "    /// The object of the host's hooks, on the caller's own connection, which passcoded calls",
           "    /// while one of that connection's calls runs.",
           f'    public static let hookPath = "{model.hook_path}"',
           "    /// The interface of the host's hooks.",
           f'    public static let hookInterface = "{model.hook_interface}"',
           "}", "",
           "public enum BusStatus {"]
    for c, v in cases:
        out.append(f"    public static let {c}: Int32 = {v}")
    out += ["", "    /// The D-Bus error name of each status without `BusNames.errorPrefix` (\"WrongPasscode\").",
            "    public static let names: [Int32: String] = ["]
    out += [f'        {v}: "{bus_name(c)}",' for c, v in cases]
    out += ["    ]", "", "    /// The status whose error name is `name`, if any.",
            "    public static func number(named name: String) -> Int32? {",
            "        names.first { $0.value == name }?.key", "    }", "}", "",
            "extension PasscodeError {", "    /// The status a `passcode_*` call returns for this error (its number).",
            "    public var busStatus: Int32 {", "        switch self {"]
    for e, s in pairs:
        if s not in numbers:
            fail(f"Status.swift maps .{e} to .{s}, which is not a status")
        out.append(f"        case .{e}: return BusStatus.{s}")
    if re.search(r"case \.service\(let status, _, _\):", mapping.group(1)):
        # A failure the service answered carries its own status (the client's `.service`).
        out.append("        case .service(let status, _, _): return status")
    out += ["        }", "    }", "}", ""]
    out += app_id_swift(model) + hooks_shared(model)
    return "\n".join(out)


def class_text(codes):
    """A character class as people read it: `A-Z a-z 0-9 . _ -`."""
    runs, i = [], 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        if j - i >= 2:
            runs.append(chr(codes[i]) + "-" + chr(codes[j]))
        else:
            runs += [chr(c) for c in codes[i:j + 1]]
        i = j + 1
    order = {c: n for n, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")}
    return " ".join(sorted(runs, key=lambda r: order.get(r[0], 99)))


def class_test(codes, var):
    """A Swift or C boolean expression: `var` (a byte) is one of `codes`."""
    parts, i = [], 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        parts.append(f"({var} >= {codes[i]} && {var} <= {codes[j]})" if j > i else f"{var} == {codes[i]}")
        i = j + 1
    return " || ".join(parts)


ALNUM = sorted(set(range(48, 58)) | set(range(65, 91)) | set(range(97, 123)))


def app_id_refusal(model):
    first, rest, most, _ = model.app_id
    start = "a letter or digit" if first == ALNUM else f"one of {class_text(first)}"
    return f"the application id must be 1 to {most} of {class_text(rest)} and start with {start}"


def app_id_swift(model):
    first, rest, most, pattern = model.app_id
    return ["/// An application id, checked: the one rule of every app id passcoded takes (the XML's",
            f"/// org.libpasscode.AppID, `{pattern}`: never \"..\", a hidden name or a path),",
            "/// the same for every caller, root too. passcoded's dispatch makes one of every call's app_id",
            "/// and hands its handler the AppID; pam_passcode's C has the same rule, generated from the same",
            "/// annotation (Sources/pam_passcode/passcode_app_id.h).",
            "public struct AppID: Hashable, Sendable, CustomStringConvertible {",
            "    /// The id as the caller wrote it.",
            "    public let name: String",
            f"    /// The longest id, in bytes.",
            f"    public static let maxBytes = {most}",
            "",
            "    /// nil when `name` is not an application id.",
            "    public init?(_ name: String) {",
            "        let bytes = Array(name.utf8)",
            "        guard let first = bytes.first, bytes.count <= AppID.maxBytes, AppID.isFirst(first),",
            "              bytes.dropFirst().allSatisfy(AppID.isRest) else { return nil }",
            "        self.name = name",
            "    }",
            "",
            "    public var description: String { name }",
            "",
            "    /// What passcoded answers (PASSCODE_ERR_MISUSE) for an id outside the rule.",
            f'    public static let invalid = PasscodeError.misuse("{app_id_refusal(model)}")',
            "",
            f"    private static func isFirst(_ b: UInt8) -> Bool {{ {class_test(first, 'b')} }}",
            f"    private static func isRest(_ b: UInt8) -> Bool {{ {class_test(rest, 'b')} }}",
            "}", ""]


def app_id_c(model):
    first, rest, most, pattern = model.app_id
    return "\n".join([
        f"/* GENERATED by scripts/gen_bus.py from {XML_NAME} (`make header`); do not edit. */",
        "/* The rule of an application id, the one passcoded's AppID checks (the XML's org.libpasscode.AppID,",
        f" * `{pattern}`): 1 to {most} of {class_text(rest)}, starting with {class_text(first)}. */",
        "#ifndef PASSCODE_APP_ID_H", "#define PASSCODE_APP_ID_H", "", "#include <string.h>", "",
        f"#define PASSCODE_APP_ID_MAX_BYTES {most}",
        "/* What passcoded answers for an id outside the rule (AppID.invalid). */",
        f'#define PASSCODE_APP_ID_REFUSAL "{app_id_refusal(model)}"', "",
        "/* 1 when `id` (NUL-terminated) is an application id, else 0. */",
        "static inline int passcode_app_id_valid(const char *id)", "{",
        "    size_t n = strnlen(id, PASSCODE_APP_ID_MAX_BYTES + 1);",
        "    if (n == 0 || n > PASSCODE_APP_ID_MAX_BYTES) return 0;",
        "    unsigned char b = (unsigned char)id[0];",
        f"    if (!({class_test(first, 'b')})) return 0;",
        "    for (size_t i = 1; i < n; i++) {",
        "        b = (unsigned char)id[i];",
        f"        if (!({class_test(rest, 'b')})) return 0;",
        "    }",
        "    return 1;", "}", "", "#endif", ""])


def hook_swift_type(a):
    return {"s": "String", "i": "Int32"}[a.type]


def hook_argument(a):
    return f".{'text' if a.type == 's' else 'int32'}({a.swift})"


def hooks_shared(model):
    out = [f"/// The bits of SetHooks' flags: which of the host's callbacks a connection has (each hook's",
           f"/// org.libpasscode.Flag in {XML_NAME}).",
           "public enum HookFlags {"]
    for h in model.hooks:
        out.append(f"    /// {h.name}.")
        out.append(f"    public static let {h.flag}: UInt32 = {h.bit}")
    out.append(f"    public static let all: UInt32 = {sum(h.bit for h in model.hooks)}")
    out += ["", "    /// The flags of the callbacks `h` has.", "    public static func of(_ h: Hooks) -> UInt32 {",
            "        var flags: UInt32 = 0"]
    for h in model.hooks:
        out.append(f"        if h.{h.field} != nil {{ flags |= {h.flag} }}")
    out += ["        return flags", "    }", "}", "",
            "/// An argument of a host's hook as it travels (the hooks take `s` and `i` only).",
            "public enum HookArgument: Sendable {", "    case text(String), int32(Int32)", "}", ""]
    for kind, answered, doc in (("HostQuestion", True, [
            f"/// A hook of {model.hook_interface} that the host answers: \"\" allows, else the refusal's text.",
            "/// passcoded sends one and waits; the client reads it (`readHostHook`)."]),
            ("HostNotice", False, [
            f"/// A notification of {model.hook_interface} (org.freedesktop.DBus.Method.NoReply): sent expecting",
            "/// no reply, before the reply of the call that caused it."])):
        hooks = [h for h in model.hooks if h.answered == answered]
        out += doc + [f"public enum {kind}: Sendable {{"]
        for h in hooks:
            ins = ", ".join(f"{a.name} {a.type}" for a in h.ins)
            out += wrap(f"{h.name}({ins})" + (" -> (refusal s)" if answered else "") + (": " + h.doc if h.doc else ""), "    /// ")
            params = ", ".join(f"{a.swift}: {hook_swift_type(a)}" for a in h.ins)
            out.append(f"    case {h.case}" + (f"({params})" if params else ""))
        out += ["", "    /// The method's name.", "    public var member: String {", "        switch self {"]
        for h in hooks:
            out.append(f'        case .{h.case}: return "{h.name}"')
        out += ["        }", "    }", "", "    /// The arguments, in order.", "    public var arguments: [HookArgument] {", "        switch self {"]
        for h in hooks:
            if h.ins:
                binds = ", ".join(f"let {a.swift}" for a in h.ins)
                out.append(f"        case .{h.case}({binds}): return [{', '.join(hook_argument(a) for a in h.ins)}]")
            else:
                out.append(f"        case .{h.case}: return []")
        out += ["        }", "    }", "}", ""]
    return out


def generate():
    model = load_model()
    names, methods = model.names, model.methods
    sections = {m.name: m.section for m in methods}
    return {VTABLE: vtable(names, methods), DAEMON: daemon(methods, model),
            CLIENT: client(methods) + "\n".join(client_store(model) + client_hooks(model)),
            STATUSES: statuses(model), STORE_HEADER: store_header(model), STORE_TABLE: store_table(model),
            APP_ID_C: app_id_c(model), METHOD_PAGE: readme_text(methods, sections)}


# ---- the checks ----

def swift_functions(paths):
    """{function name: [(file, body, declaration with the comments above it)]} of the Swift files:
    each `func` and computed `var`, its body found by brace matching, comments left out."""
    found = {}
    for path in paths:
        text = path.read_text()
        code = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), text)  # same offsets, no comments
        decl = re.compile(r"^[ \t]*(?:[\w@()]+[ \t]+)*(?:func (\w+)[^{]*?|var (\w+)[ \t]*:[^={\n]*)\{", re.M)
        for m in decl.finditer(code):
            name = m.group(1) or m.group(2)
            start = m.end() - 1
            depth, i = 0, start
            while i < len(code):
                if code[i] == "{":
                    depth += 1
                elif code[i] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            # The comment lines right above the declaration, for `// bus: local`.
            above = []
            for line in reversed(text[:m.start()].rstrip("\n").split("\n")):
                if not line.strip().startswith("//"):
                    break
                above.append(line)
            found.setdefault(name, []).append((path, code[start:i + 1], "\n".join(above) + "\n" + text[m.start():m.end()]))
    return found


def requirements():
    """The back end's requirements: [(protocol, name)] of the protocols in Backend*.swift and FlowStore."""
    out = []
    sources = sorted(BACKEND.glob("Backend*.swift")) + [FLOW]
    for path in sources:
        text = path.read_text()
        for p in re.finditer(r"^(?:public |package )?protocol (\w+)[^{]*\{(.*?)\n\}", text, re.S | re.M):
            if path == FLOW and p.group(1) != "FlowStore":
                continue
            for r in re.finditer(r"^\s*(?:func (\w+)|var (\w+)\s*:)", p.group(2), re.M):
                out.append((p.group(1), r.group(1) or r.group(2)))
    return out


def check():
    problems = []
    for path, text in generate().items():
        if path == METHOD_PAGE:
            continue  # make check-docs (--check-readme)
        old = path.read_text() if path.exists() else ""
        if old != text:
            rel = path.relative_to(ROOT)
            diff = "".join(difflib.unified_diff(old.splitlines(True), text.splitlines(True), f"{rel} (committed)",
                                                f"{rel} (from the XML)", n=1))
            problems.append(f"{rel} differs from what scripts/gen_bus.py writes (run make header):\n{diff}")
    _, methods = load()
    # Every method has its handler in passcoded (the build says the same: Service does not conform).
    daemon_sources = [p for p in sorted((ROOT / "Sources" / "passcoded" / "Daemon").glob("*.swift")) if p != DAEMON]
    daemon_text = "\n".join(p.read_text() for p in daemon_sources)
    for m in methods:
        written = re.search(rf"\bfunc {m.handler}\(", daemon_text)
        if m.generated_handler and written:
            problems.append(f"{m.name} ({XML_NAME}): its handler {m.handler} is generated (org.libpasscode.Seam or Core) and "
                            "written by hand in Sources/passcoded/Daemon too: remove one")
        elif not m.generated_handler and not written:
            problems.append(f"{m.name} ({XML_NAME}) has no handler in passcoded: Sources/passcoded/Daemon has no "
                            f"`func {m.handler}(_ call: BusCall, ...)` (the protocol Passcode1Handlers requires it), "
                            "and the method is not a simple one whose handler is generated (org.libpasscode.Seam or Core)")
    # Every client stub is called by the client.
    client_sources = [p for p in sorted(BACKEND.glob("*.swift")) if p != CLIENT]
    client_text = "\n".join(p.read_text() for p in client_sources)
    for m in methods:
        if m.has_stub and not m.seam and not re.search(rf"\b{m.stub}\(", client_text):
            problems.append(f"{m.name} ({XML_NAME}): its client stub {m.stub}() is never called in Sources/libpasscode/PasscodeBackend "
                            "(a method no back-end call reaches: call it, or mark the method org.libpasscode.Client "
                            "\"none: why\")")
    for m in methods:
        if m.seam and re.search(rf"\bfunc {m.seam[0]}\(", "\n".join(p.read_text() for p in client_sources if p.name.startswith("ServiceClient"))):
            problems.append(f"{m.name} ({XML_NAME}): the client's {m.seam[0]} is generated (org.libpasscode.Seam) and "
                            "written by hand in Sources/libpasscode/PasscodeBackend too: remove one")
    # Every requirement of the back end that ServiceClient implements reaches the bus: its body calls
    # a stub, or a function that does, or it says `// bus: local (why)` above its declaration.
    functions = swift_functions(sorted(p for p in BACKEND.glob("ServiceClient*.swift")))
    stubs = {m.stub for m in methods if m.has_stub}
    # The functions that reach a stub, directly or through others: grown until nothing changes.
    calls = {name: {c for _, body, _ in bodies for c in re.findall(r"\b(\w+)\b", body)} for name, bodies in functions.items()}
    reach = set(stubs)
    grown = True
    while grown:
        grown = False
        for name, called in calls.items():
            if name not in reach and called & reach:
                reach.add(name)
                grown = True

    def reaches_bus(name, seen):
        return name in reach

    problems += check_properties_and_hooks(load_model(), daemon_text, client_text)
    for protocol, name in requirements():
        if name not in functions:
            continue  # not the client's (the embedded store's alone, or inherited)
        local = [decl for _, _, decl in functions[name] if "// bus: local" in decl]
        if local:
            if not re.search(r"// bus: local \(\S", local[0]):
                problems.append(f"{protocol}.{name}: `// bus: local` needs its reason: `// bus: local (why)`")
            continue
        if not reaches_bus(name, set()):
            problems.append(f"{protocol}.{name}: ServiceClient's implementation reaches no method of {XML_NAME} "
                            "(it calls no generated stub callXxx, directly or through its own functions): add the "
                            "method to the XML, or say `// bus: local (why)` above it")
    return problems


PROPS_DAEMON = "Sources/passcoded/Daemon/Service+Properties.swift"
PROPS_CLIENT = "Sources/libpasscode/PasscodeBackend/ServiceClient+Cache.swift"
LOGIN_DAEMON = "Sources/passcoded/Daemon/Service+Login.swift"
HOOKS_DAEMON = "Sources/passcoded/Daemon/Service+Hooks.swift"
HOOKS_CLIENT = "Sources/libpasscode/PasscodeBackend/ServiceClient+Hooks.swift"


def check_properties_and_hooks(model, daemon_text, client_text):
    """Both ends of the generated property table and hook calls use every property and hook: the
    struct and the readers are generated, the code that fills and reads them is not."""
    problems = []
    daemon_props = (ROOT / PROPS_DAEMON).read_text()
    client_props = (ROOT / PROPS_CLIENT).read_text()
    for prop in model.properties:
        if not re.search(rf"\b{prop.field}:", daemon_props):
            problems.append(f"property {prop.name} ({model.store_interface}, {XML_NAME}): passcoded never sets it: "
                            f"{PROPS_DAEMON} does not pass `{prop.field}:` to passcode_bus_props (the struct "
                            "include/passcode_bus_store.h generated from the XML)")
        if not re.search(rf"\.{prop.swift}\b", client_props):
            problems.append(f"property {prop.name} ({model.store_interface}, {XML_NAME}): the client never reads it: "
                            f"{PROPS_CLIENT} does not use `.{prop.swift}` of StoreProperties (generated from the XML)")
    daemon_login = (ROOT / LOGIN_DAEMON).read_text()
    for prop in model.login_properties:
        if not re.search(rf"\b{prop.field}:", daemon_login):
            problems.append(f"property {prop.name} ({model.login_interface}, {XML_NAME}): passcoded never sets it: "
                            f"{LOGIN_DAEMON} does not pass `{prop.field}:` to passcode_bus_login_props (the struct "
                            "include/passcode_bus_store.h generated from the XML)")
    daemon_hooks = (ROOT / HOOKS_DAEMON).read_text()
    client_hooks_text = (ROOT / HOOKS_CLIENT).read_text()
    for h in model.hooks:
        kind = "HostQuestion" if h.answered else "HostNotice"
        if not re.search(rf"\.{h.case}\(" if h.ins else rf"\.{h.case}\b", daemon_hooks):
            problems.append(f"hook {h.name} ({model.hook_interface}, {XML_NAME}): passcoded never asks it: "
                            f"{HOOKS_DAEMON} makes no `{kind}.{h.case}` (the stand-in for Hooks.{h.field})")
        if not re.search(rf"case \.{h.case}\b", client_hooks_text):
            problems.append(f"hook {h.name} ({model.hook_interface}, {XML_NAME}): the client never answers it: "
                            f"{HOOKS_CLIENT} has no `case .{h.case}` calling the host's Hooks.{h.field}")
        if not re.search(rf"\bh(?:ooks)?\.{h.field}\b", client_hooks_text):
            problems.append(f"hook {h.name} ({model.hook_interface}, {XML_NAME}): the client never calls the host's "
                            f"Hooks.{h.field} in {HOOKS_CLIENT}")
    return problems


def check_readme():
    """passcode-service(3)'s method list (between its bus-methods markers) is the one the XML gives."""
    _, methods = load()
    old = METHOD_PAGE.read_text()
    new = readme_text(methods, {m.name: m.section for m in methods}, old)
    if old == new:
        return [], len(methods)
    diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "docs/passcode-service.3.md (committed)",
                                        f"docs/passcode-service.3.md (from {XML_NAME})", n=1))
    return [f"passcode-service(3)'s D-Bus method list is not the XML's (run make header):\n{diff}"], len(methods)


def main():
    args = sys.argv[1:]
    if args == ["--check"]:
        problems = check()
        if problems:
            for p in problems:
                print(f"bus: FAIL: {p}", file=sys.stderr)
            sys.exit(1)
        _, methods = load()
        model = load_model()
        generated = sum(1 for m in methods if m.generated_handler)
        print(f"bus: the {len(methods)} methods, {len(model.properties)} store properties, {len(model.login_properties)} login "
              f"properties and {len(model.hooks)} host hooks of "
              f"{XML_NAME}: the vtable, the property table, passcoded's dispatch ({generated} handlers generated, "
              f"{len(methods) - generated} written), the client's stubs and readers, the hook calls and the app id's rule "
              "(Swift and C) match it; every method has a handler in passcoded, every stub a caller, every property and "
              "hook both ends, every back-end requirement of the client reaches the bus or says why not; BusStatus "
              "matches Status.swift")
    elif args == ["--check-readme"]:
        problems, n = check_readme()
        for p in problems:
            print(f"docs: FAIL: {p}", file=sys.stderr)
        if problems:
            sys.exit(1)
        print(f"docs: passcode-service(3)'s D-Bus method list names the {n} methods of {XML_NAME}")
    elif not args:
        for path, text in generate().items():
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                print(f"gen_bus.py: wrote {path.relative_to(ROOT)}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
