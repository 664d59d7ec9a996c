// What the integrity MAC covers (Integrity.swift), read in a fixed, canonical order (the storage
// layer, Storage.swift). The bytes a MAC covers are part of the file format: a change here makes
// every sealed store read as tampered.

extension Storage {
    /// Every row of every table the MAC of `version` covers, each with its table's name first,
    /// in a fixed order, without the MAC's own row. Version 1 (0.6 and older) covered the
    /// passcode, recovery, settings, state and reset-code rows; version 2 also the reset
    /// requests, the event log and the device sessions, i.e. every table.
    func securityRows(version: Int) throws -> [[SQLValue]] {
        var tables = [
            "SELECT 'passcode', id, verifier, length, set_wall_ms FROM passcode ORDER BY id",
            "SELECT 'recovery', id, wrap FROM recovery ORDER BY id",
            "SELECT 'settings', key, value FROM settings ORDER BY key",
            "SELECT 'state', key, value FROM state WHERE key <> '\(StateKey.integrityMac.rawValue)' ORDER BY key",
            "SELECT 'reset_code', generation, salt, hash, boot_id, expires_boot_ms, expires_wall_ms, tries, replaced FROM reset_code ORDER BY generation",
        ]
        if version >= 2 {
            tables += [
                "SELECT 'reset_request', rowid, boot_id, boot_ms, wall_ms, failed FROM reset_request ORDER BY rowid",
                "SELECT 'event', id, wall_ms, kind, detail FROM event ORDER BY id",
                "SELECT 'session', id, device_name, platform, last_active_wall_ms, location, is_current FROM session ORDER BY id",
            ]
        }
        return try tables.flatMap { try database.query($0) }
    }

    /// The reset code and reset request rows, in a fixed order (the reset rows' own MAC).
    func resetRows() throws -> [[SQLValue]] {
        try ["SELECT generation, salt, hash, boot_id, expires_boot_ms, expires_wall_ms, tries, replaced FROM reset_code ORDER BY generation",
             "SELECT rowid, boot_id, boot_ms, wall_ms, failed FROM reset_request ORDER BY rowid"].flatMap { try database.query($0) }
    }
}
