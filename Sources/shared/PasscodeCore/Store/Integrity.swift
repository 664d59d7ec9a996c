// With a pepper, the security state in the file is authenticated: a keyed BLAKE2b (key derived
// from the pepper) over every row of every table (passcode, recovery, settings, state, reset
// code, reset requests, event log, sessions), a random store id and the schema version,
// kept in the state row `integrity_mac` and renewed in every write transaction. An edit made
// outside libpasscode (forgiving failures, deleting the passcode, unlocking) no longer matches:
// every call then fails with `tampered`, as in the maximum-failure state, until the reset by
// email, forgot passcode or delete account completes (they seal the state they leave). Nothing
// is written on a mismatch, so a host with a wrong pepper harms nothing. Without a pepper nothing can key such a MAC: file edits are
// not detected (passcode(7), the security model). Restoring an older copy with its own valid MAC is a
// rollback, which only hardware can see (the TPM issue).
//
// This file: the MAC itself and the unambiguous encoding of what it covers (which rows:
// Storage+Integrity.swift). When the store checks and renews it: Features/PasscodeStore+Integrity.swift.

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

    /// Rows, each as its length and then its values: unambiguous.
    static func append(rows: [[SQLValue]], to out: inout [UInt8]) {
        for row in rows {
            append(.int(Int64(row.count)), to: &out)
            for v in row { append(v, to: &out) }
        }
    }
}
