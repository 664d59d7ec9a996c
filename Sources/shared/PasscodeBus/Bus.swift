// What both sides of org.libpasscode.Passcode1 share, written once: the error replies' names and
// text and the limits of the arguments. passcoded and the library's
// client (Sources/libpasscode/PasscodeBackend) import this module; neither imports the other, and passcoded
// never imports the C ABI (Sources/libpasscode/Passcode). The names, the statuses, the app id's
// rule (AppID), the bits of SetHooks' flags and the host's hook calls are generated
// (Bus.generated.swift, by scripts/gen_bus.py) from service/org.libpasscode.Passcode1.xml.
import PasscodeCore

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
