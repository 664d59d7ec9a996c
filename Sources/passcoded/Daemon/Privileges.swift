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
    /// `keep`: a group to keep as the one supplementary group (the TPM device's), nil: none.
    static func drop(to uid: uid_t, gid: gid_t, keeping keep: gid_t? = nil) -> String? {
        passcode_bus_drop_privileges_keeping(uid, gid, keep ?? gid_t.max).map { String(cString: $0) }
    }

    /// The group passcoded keeps for a TPM reached as a device (`device:PATH`, read while root):
    /// the device node's group when that group may read and write it and is not root's (the
    /// kernel's /dev/tpmrm0 is root:tss 0660); nil for any other TCTI, or a node only root may use.
    static func tpmDeviceGroup(_ tcti: String?) -> gid_t? {
        guard let tcti, tcti.hasPrefix("device:") else { return nil }
        let path = String(tcti.dropFirst("device:".count))
        var st = stat()
        guard !path.isEmpty, stat(path, &st) == 0, st.st_gid != 0, st.st_mode & 0o060 == 0o060 else { return nil }
        return st.st_gid
    }
}

/// One line on standard error (the journal, under systemd). Never a secret.
func log(_ message: String) {
    let line = Array("passcoded: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
