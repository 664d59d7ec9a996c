// The data key across app launches of one boot: the Linux kernel keyring.
//
// iOS lets Face ID unlock an app at a cold start once the device has been unlocked with its
// passcode since the last restart. The equivalent here: after a passcode unlock, the key that
// opens the store's key wrap (the wrap's key-encryption key, KEK) is kept in the kernel keyring,
// in the process's own session keyring (never the user session keyring, @us), readable only by
// its possessors (the processes of this login session), with a 48-hour timeout. A later process
// of the same session that gets a biometric match policy allows reads it back and opens the wrap
// in the store file with it, so a forged entry opens nothing. The kernel forgets every key at reboot: "passcode after restart".
//
// Entries are named "libpasscode:<hex>", the hex a hash of the wrap's public salt, so every
// passcode (and every store) has its own and a changed passcode leaves nothing behind.
// Keyring errors never fail a call: without an entry the passcode is needed, as before.
internal import CKeyring
import CPasscodeShims

enum SessionKeyring {
    /// The timeout of an entry: the 48-hour rule of biometric unlock.
    static let timeoutSeconds = UInt(BiometricPolicy.passcodeMaxAgeMs / 1000)
    static let type = "user"

    /// The entry's name for a wrap with this salt.
    static func name(salt: [UInt8]) -> String {
        let digest = Sodium.publicHash(salt, key: Array("libpasscode session keyring v1".utf8), count: 16)
        let hex = Array("0123456789abcdef".utf8)
        var text = "libpasscode:"
        for b in digest { text.unicodeScalars.append(UnicodeScalar(hex[Int(b >> 4)])); text.unicodeScalars.append(UnicodeScalar(hex[Int(b & 15)])) }
        return text
    }

    /// The serial of this process's own session keyring, without creating one; nil when it has
    /// none. A process without one is given the user's session keyring (`@us`) in its place,
    /// which every login session of the user can reach (`keyctl link @us @s`): that is no
    /// "only this login session", so it is never used, not even as a fallback. Nor is a session
    /// keyring that another process of the user can join or link (`isPrivate`).
    private static func keyring() -> Int32? {
        let session = serial(of: passcode_keyring_session), user = serial(of: passcode_keyring_user_session)
        guard let session, session != user, isPrivate(session) else { return nil }
        return session
    }

    /// The permission bits for everyone but the possessor that let another process reach a
    /// keyring's contents: write, search (which KEYCTL_JOIN_SESSION_KEYRING by name needs), link
    /// (`keyctl link RING @s`) and setattr (to grant those), for user, group and other.
    static let reachableByOthers: UInt32 = 0x003c_3c3c

    /// Whether the keyring `ring` is one only its possessors reach, as pam_keyinit's anonymous
    /// session keyring ("_ses", made by KEYCTL_JOIN_SESSION_KEYRING with no name: possessor all,
    /// user view and read) is. A named one (`keyctl session NAME`) also grants the user link and
    /// search: another login session of the same user can join it or link it into its own and
    /// so possess the entry, whatever the entry's own permissions say. Read from KEYCTL_DESCRIBE
    /// ("type;uid;gid;perm;description", perm in hex); anything unexpected is not private.
    static func isPrivate(_ ring: Int32) -> Bool {
        var text = [UInt8](repeating: 0, count: 512)
        let n = text.withUnsafeMutableBytes { b in
            passcode_keyctl(Int32(passcode_keyctl_describe), UInt(bitPattern: Int(ring)), UInt(bitPattern: b.baseAddress), UInt(b.count), 0)
        }
        guard n > 0, n <= text.count else { return false }
        let fields = text[0..<(Int(n) - 1)].split(separator: UInt8(ascii: ";"), maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, String(decoding: fields[0], as: UTF8.self) == "keyring",
              let uid = UInt32(String(decoding: fields[1], as: UTF8.self)), uid == geteuid(),
              let perm = UInt32(String(decoding: fields[3], as: UTF8.self), radix: 16) else { return false }
        return perm & reachableByOthers == 0
    }

    private static func serial(of special: Int) -> Int32? {
        let id = passcode_keyctl(Int32(passcode_keyctl_get_keyring_id), UInt(bitPattern: special), 0, 0, 0)
        return id > 0 ? Int32(truncatingIfNeeded: id) : nil
    }

    /// Whether this process has a session keyring of its own, where an entry may be kept.
    static var isAvailable: Bool { keyring() != nil }

    private static func find(_ name: String, in ring: Int32) -> Int? {
        let serial = name.withCString { n in
            type.withCString { t in
                passcode_keyctl(Int32(passcode_keyctl_search), UInt(bitPattern: Int(ring)), UInt(bitPattern: t), UInt(bitPattern: n), 0)
            }
        }
        return serial > 0 ? serial : nil
    }

    /// Stores `kek` under `name`, replacing an entry of that name; possessor-only, 48 hours.
    /// Returns whether it is there.
    @discardableResult
    static func put(_ name: String, kek: SecretBytes) -> Bool {
        guard let ring = keyring() else { return false }
        let serial = kek.withBytes { k in
            name.withCString { n in type.withCString { t in passcode_add_key(t, n, k.baseAddress, k.count, ring) } }
        }
        guard serial > 0 else { return false }
        let id = UInt(serial)
        if passcode_keyctl(Int32(passcode_keyctl_setperm), id, UInt(PASSCODE_KEY_POSSESSOR_ONLY), 0, 0) != 0
            || passcode_keyctl(Int32(passcode_keyctl_set_timeout), id, timeoutSeconds, 0, 0) != 0 {
            remove(serial: Int(serial))
            return false
        }
        return true
    }

    /// The KEK stored under `name`, if this session has one of the right size.
    static func get(_ name: String) -> SecretBytes? {
        guard let ring = keyring(), let serial = find(name, in: ring) else { return nil }
        let out = SecretBytes(count: Sodium.keyBytes)
        let n = out.withMutableBytes { b in
            passcode_keyctl(Int32(passcode_keyctl_read), UInt(serial), UInt(bitPattern: b.baseAddress), UInt(b.count), 0)
        }
        return n == Sodium.keyBytes ? out : nil
    }

    /// Removes the entry under `name` at once (revoked if it cannot be invalidated).
    static func remove(_ name: String) {
        guard let ring = keyring() else { return }
        for _ in 0..<4 {  // one entry, unless another process raced to add one
            guard let serial = find(name, in: ring), remove(serial: serial) else { return }
        }
    }

    @discardableResult
    private static func remove(serial: Int) -> Bool {
        if passcode_keyctl(Int32(passcode_keyctl_invalidate), UInt(serial), 0, 0, 0) == 0 { return true }
        return passcode_keyctl(Int32(passcode_keyctl_revoke), UInt(serial), 0, 0, 0) == 0
    }
}

/// The key-encryption key of the store's current wrap, and the wrap's keyring name.
struct SessionEntry {
    let name: String
    let kek: SecretBytes
}
