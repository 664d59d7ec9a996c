// Dropping root: passcoded starts as root (bus activation on a private bus, or an init system
// without User=), opens the bus and its store folder, then becomes the `passcode` user for good.
import CPasscodeBus
import Glibc

enum Privileges {
    /// The uid and gid of `name`, looked up while still root.
    static func lookup(_ name: String) -> (uid: uid_t, gid: gid_t)? {
        guard let pw = getpwnam(name) else { return nil }
        return (pw.pointee.pw_uid, pw.pointee.pw_gid)
    }

    /// Drops the groups, gid and uid for good (CPasscodeBus, where setresuid is declared).
    /// Returns nil on success, else what failed.
    static func drop(to uid: uid_t, gid: gid_t) -> String? {
        passcode_bus_drop_privileges(uid, gid).map { String(cString: $0) }
    }
}

/// One line on standard error (the journal, under systemd). Never a secret.
func log(_ message: String) {
    let line = Array("passcoded: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
