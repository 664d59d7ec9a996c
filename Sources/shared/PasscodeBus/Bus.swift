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

extension AppID {
    /// The longest store name a sandboxed app may give: the longest app id Flatpak allows.
    public static let maxSandboxedBytes = 255

    /// A store name a sandboxed app gave (its verified id, or a name under it), up to 255 bytes
    /// of A-Z a-z 0-9 . _ -, not starting with '.' or '-', with no ".." (never a hidden name or
    /// a path). passcoded checks first that it is the caller's verified id or under it.
    public init?(sandboxed name: String) {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= AppID.maxSandboxedBytes, first != UInt8(ascii: "."), first != UInt8(ascii: "-"),
              bytes.allSatisfy({ ($0 >= 45 && $0 <= 46) || ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || $0 == 95 || ($0 >= 97 && $0 <= 122) }),
              !zip(bytes, bytes.dropFirst()).contains(where: { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") }) else { return nil }
        self.name = name
    }
}
