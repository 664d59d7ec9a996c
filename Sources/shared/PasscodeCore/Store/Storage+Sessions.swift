// The device session rows (the storage layer, Storage.swift).

extension Storage {
    /// Adds or updates a session; marking one current unmarks the others.
    func putSession(_ s: DeviceSession) throws(PasscodeError) {
        if s.isCurrent { try database.query("UPDATE session SET is_current = 0") }
        try database.query("""
            INSERT INTO session(id, device_name, platform, last_active_wall_ms, location, is_current)
            VALUES(?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET device_name = excluded.device_name, platform = excluded.platform,
                last_active_wall_ms = excluded.last_active_wall_ms, location = excluded.location,
                is_current = excluded.is_current
            """, [.text(s.id), .text(s.deviceName), .text(s.platform), .int(s.lastActiveWallMs),
                  s.location.map { .text($0) } ?? .null, .int(s.isCurrent ? 1 : 0)])
    }

    /// Every session, this device first, then the most recently active.
    func sessions() throws(PasscodeError) -> [DeviceSession] {
        try database.query("SELECT id, device_name, platform, last_active_wall_ms, location, is_current FROM session ORDER BY is_current DESC, last_active_wall_ms DESC, id").map {
            DeviceSession(id: $0[0].text ?? "", deviceName: $0[1].text ?? "", platform: $0[2].text ?? "",
                          lastActiveWallMs: $0[3].int ?? 0, location: $0[4].text, isCurrent: $0[5].int == 1)
        }
    }

    /// Whether the session `id` is this device's; nil when there is no such session.
    func sessionIsCurrent(_ id: String) throws(PasscodeError) -> Bool? {
        guard let row = try database.query("SELECT is_current FROM session WHERE id = ?", [.text(id)]).first else { return nil }
        return row[0].int == 1
    }

    /// The ids of the sessions of other devices.
    func otherSessionIDs() throws(PasscodeError) -> [String] {
        try database.query("SELECT id FROM session WHERE is_current = 0").compactMap { $0[0].text }
    }

    /// Deletes the session `id` unless it is this device's.
    func deleteOtherSession(_ id: String) throws(PasscodeError) {
        try database.query("DELETE FROM session WHERE id = ? AND is_current = 0", [.text(id)])
    }

    /// Deletes every session, this device's too (the write that ends a detected edit: none of
    /// them can be told from one the attacker wrote). Returns how many there were.
    func deleteAllSessions() throws(PasscodeError) -> Int {
        let n = Int(try database.scalar("SELECT count(*) FROM session")?.int ?? 0)
        try database.query("DELETE FROM session")
        return n
    }
}
