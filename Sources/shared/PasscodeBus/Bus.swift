// What both sides of org.libpasscode.Passcode1 share, written once: the error replies' names and
// text, the limits of the arguments, and the bits of SetHooks' flags. passcoded and the library's
// client (Sources/libpasscode/PasscodeBackend) import this module; neither imports the other, and passcoded
// never imports the C ABI (Sources/libpasscode/Passcode). The names and the statuses are generated
// (Bus.generated.swift, by scripts/gen_bus.py); the methods are defined in
// service/org.libpasscode.Passcode1.xml.
import PasscodeCore

extension BusNames {
    /// The object of the host's hooks, on the caller's own connection, which passcoded calls
    /// while one of that connection's calls runs.
    public static let hookPath = "/org/libpasscode/Hook"
    /// The interface of the host's hooks (SettingChange, Lifecycle, SessionSignOut, Logout, Notice,
    /// AccountDeleted).
    public static let hookInterface = "org.libpasscode.Hook1"
}

/// The limits passcoded sets on the arguments it reads.
public enum BusLimits {
    /// The longest string argument: an app id is at most 64 bytes, a passcode far less. Longer:
    /// InvalidArgs, nothing opened.
    public static let maxArgumentBytes = 256
}

/// A status as a D-Bus error: named `org.libpasscode.Error.<Name>` (`BusStatus.names`), its
/// message "status N: " and then the core's message.
public enum BusError {
    public static let prefix = "org.libpasscode.Error."

    /// The error name and message of `status` with the core's `message`.
    public static func reply(status: Int32, message: String) -> (name: String, message: String) {
        (prefix + (BusStatus.names[status] ?? "Internal"), "status \(status): \(message)")
    }

    /// The status an error reply named `name` carries (nil: not one of the service's statuses)
    /// and the core's message, without its "status N: ".
    public static func parse(name: String, message: String) -> (status: Int32, message: String)? {
        guard name.hasPrefix(prefix), let status = BusStatus.number(named: String(name.dropFirst(prefix.count))) else { return nil }
        var text = message
        if text.hasPrefix("status "), let colon = text.firstIndex(of: ":") {
            text = String(text[text.index(after: colon)...].drop(while: { $0 == " " }))
        }
        return (status, text)
    }
}

/// The bits of SetHooks' flags: which of the host's callbacks a connection has.
public enum HookFlags {
    public static let settings: UInt32 = 1
    public static let lifecycle: UInt32 = 2
    public static let session: UInt32 = 4
    public static let logout: UInt32 = 8
    public static let notice: UInt32 = 16
    public static let accountDeleted: UInt32 = 32
    public static let all: UInt32 = 63

    /// The flags of the callbacks `h` has.
    public static func of(_ h: Hooks) -> UInt32 {
        (h.settingChange != nil ? settings : 0) | (h.lifecycle != nil ? lifecycle : 0) | (h.signOutSession != nil ? session : 0)
            | (h.logout != nil ? logout : 0) | (h.notify != nil ? notice : 0) | (h.accountDeleted != nil ? accountDeleted : 0)
    }
}
