// With a pepper, the security state in the file is authenticated: a keyed BLAKE2b (key derived
// from the pepper) over the passcode row, the recovery wrap, every setting, every state row and the reset code,
// kept in the state row `integrity_mac` and renewed in every write transaction. An edit made
// outside libpasscode (forgiving failures, deleting the passcode, unlocking) no longer matches:
// every call then fails with `tampered`, as in the maximum-failure state, until the reset by
// email, forgot passcode or delete account completes (they seal the state they leave). Nothing
// is written on a mismatch, so a host with a wrong pepper harms nothing. Without a pepper nothing can key such a MAC: file edits are
// not detected (README, security model). Restoring an older copy with its own valid MAC is a
// rollback, which only hardware can see (the TPM issue).

/// How a transaction treats the MAC.
enum IntegrityUse {
    /// Refuse with `tampered` when the state does not match (every ordinary call).
    case check
    /// Go on anyway (requesting and checking a reset code, and the queries they need); seal
    /// again only when the state matched, so a tampered store stays tampered.
    case recover
    /// Go on anyway and seal what the call leaves (reset completed, forgot passcode, delete account).
    case resolve
}

enum Integrity {
    static let macKey = "integrity_mac"
    static let pepperCheckKey = "pepper_check"

    /// BLAKE2b keyed with the pepper over a fixed context: the pepper itself is never the MAC key.
    static func key(pepper: SecretBytes) -> SecretBytes {
        Sodium.keyedHash(SecretBytes(Array("libpasscode integrity key v1".utf8)), key: pepper)
    }

    /// Keyed BLAKE2b of `message` under a key held in secret memory (the copy made for the call is wiped).
    static func mac(_ message: [UInt8], key: SecretBytes) -> [UInt8] {
        var k = key.withBytes { Array($0) }
        defer { Sodium.wipe(&k) }
        return Sodium.mac(SecretBytes(message), key: k)
    }

    /// One value, unambiguous: a type tag, then a length-prefixed payload.
    static func append(_ v: SQLValue, to out: inout [UInt8]) {
        func bytes(_ tag: UInt8, _ payload: [UInt8]) {
            out.append(tag)
            withUnsafeBytes(of: UInt64(payload.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: payload)
        }
        switch v {
        case .null: bytes(0, [])
        case .int(let i): bytes(1, withUnsafeBytes(of: i.littleEndian) { Array($0) })
        case .text(let t): bytes(2, Array(t.utf8))
        case .blob(let b): bytes(3, b)
        }
    }
}

extension PasscodeStore {
    /// Every security-relevant row, serialised in a fixed order.
    func securityStateLocked() throws -> [UInt8] {
        var out: [UInt8] = []
        let tables = [
            "SELECT 'passcode', id, verifier, length, set_wall_ms FROM passcode ORDER BY id",
            "SELECT 'recovery', id, wrap FROM recovery ORDER BY id",
            "SELECT 'settings', key, value FROM settings ORDER BY key",
            "SELECT 'state', key, value FROM state WHERE key <> '\(Integrity.macKey)' ORDER BY key",
            "SELECT 'reset_code', generation, salt, hash, boot_id, expires_boot_ms, expires_wall_ms, tries, replaced FROM reset_code ORDER BY generation",
        ]
        for sql in tables {
            for row in try db.query(sql) {
                Integrity.append(.int(Int64(row.count)), to: &out)
                for v in row { Integrity.append(v, to: &out) }
            }
        }
        return out
    }

    private func macLocked() throws -> [UInt8] {
        Integrity.mac(try securityStateLocked(), key: integrityKey!)
    }

    /// Checks at open that this open's pepper (or its absence) is the store's: a store set up
    /// with a pepper keeps a check value (a keyed hash, which reveals nothing of the pepper), so
    /// a host with no pepper or another one is refused before it can write anything.
    func checkPepperAtOpen() throws {
        try lock.withLock {
            let stored = try db.scalar("SELECT value FROM state WHERE key = ?", [.text(Integrity.pepperCheckKey)])
            guard let key = integrityKey else {
                if stored != nil {
                    throw PasscodeError.wrongPepper("this store was set up with a pepper; open it with the same pepper (passcode_options_set_pepper)")
                }
                return
            }
            let check = Integrity.mac(Array("libpasscode pepper check v1".utf8), key: key)
            if let stored {
                guard Sodium.constantTimeEqual(stored.blob ?? [], check) else {
                    throw PasscodeError.wrongPepper("the pepper is not the one this store was set up with")
                }
                return
            }
            try db.write {
                guard try securityStateLocked().isEmpty else {
                    throw PasscodeError.wrongPepper("this store was set up without a pepper; open it without one")
                }
                try db.query("INSERT INTO state(key, value) VALUES(?, ?)", [.text(Integrity.pepperCheckKey), .blob(check)])
                try sealLocked()
            }
        }
    }

    /// Whether the state matches its MAC; a store that was never sealed must be empty.
    func isIntactLocked() throws -> Bool {
        guard let stored = try db.scalar("SELECT value FROM state WHERE key = ?", [.text(Integrity.macKey)]) else {
            return try securityStateLocked().isEmpty
        }
        return Sodium.constantTimeEqual(stored.blob ?? [], try macLocked())
    }

    /// Logs a detected edit, once until the state is sealed again.
    func logTamperOnceLocked() throws {
        let latest = try db.scalar("SELECT kind FROM event ORDER BY id DESC LIMIT 1")?.int
        if latest != Int64(SecurityEvent.tamperDetected.rawValue) { try logLocked(.tamperDetected, now: try now()) }
    }

    /// Renews the MAC (inside a write transaction).
    func sealLocked() throws {
        try db.query("INSERT INTO state(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                     [.text(Integrity.macKey), .blob(try macLocked())])
    }

}
