// The security event log's rows (the storage layer, Storage.swift).

/// One row of the event log, as stored (`kind` unchecked).
struct EventRow {
    let kind: Int64?
    let wallMs: Int64
    let detail: String
}

extension Storage {
    /// Appends an event; returns its id.
    func addEvent(kind: Int32, wallMs: Int64, detail: String) throws(PasscodeError) -> Int64 {
        try database.query("INSERT INTO event(wall_ms, kind, detail) VALUES(?, ?, ?)", [.int(wallMs), .int(Int64(kind)), .text(detail)])
        return try database.scalar("SELECT last_insert_rowid()")?.int ?? 0
    }

    /// Deletes the events with an id up to `id`, and those older than `wallMs` when given.
    func deleteEvents(upTo id: Int64, before wallMs: Int64?) throws(PasscodeError) {
        try database.query("DELETE FROM event WHERE id <= ?", [.int(id)])
        if let wallMs { try database.query("DELETE FROM event WHERE wall_ms < ?", [.int(wallMs)]) }
    }

    func deleteEvent(id: Int64) throws(PasscodeError) {
        try database.query("DELETE FROM event WHERE id = ?", [.int(id)])
    }

    /// The log, newest first.
    func events() throws(PasscodeError) -> [EventRow] {
        try database.query("SELECT kind, wall_ms, detail FROM event ORDER BY id DESC").map {
            EventRow(kind: $0[0].int, wallMs: $0[1].int ?? 0, detail: $0[2].text ?? "")
        }
    }

    /// The kind of the newest event, if any.
    func latestEventKind() throws(PasscodeError) -> Int64? {
        try database.scalar("SELECT kind FROM event ORDER BY id DESC LIMIT 1")?.int
    }

    /// The id of the newest event of one of `kinds` (before `id`, when given); 0 when none.
    func latestEventID(of kinds: [Int32], before id: Int64? = nil) throws(PasscodeError) -> Int64 {
        let list = "(" + kinds.map { String($0) }.joined(separator: ", ") + ")"
        guard let id else { return try database.scalar("SELECT max(id) FROM event WHERE kind IN \(list)")?.int ?? 0 }
        return try database.scalar("SELECT max(id) FROM event WHERE kind IN \(list) AND id < ?", [.int(id)])?.int ?? 0
    }

    /// How many events of `kind` lie strictly between the ids `after` and `before`, and the wall
    /// time of the last one.
    func countEvents(of kind: Int32, after: Int64, before: Int64) throws(PasscodeError) -> (count: Int, lastWallMs: Int64?) {
        let row = try database.query("SELECT count(*), max(wall_ms) FROM event WHERE kind = ? AND id > ? AND id < ?",
                                     [.int(Int64(kind)), .int(after), .int(before)]).first
        return (Int(row?[0].int ?? 0), row?[1].int)
    }
}
