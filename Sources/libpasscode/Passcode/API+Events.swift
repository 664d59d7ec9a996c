// The C ABI for the security event log: a snapshot in the style of the session list, and the
// summary a front end shows after an unlock ("3 failed attempts since your last unlock").
import CPasscodeShims
import PasscodeBackend
import PasscodeCore

/// What a `passcode_event_log *` stands for.
typealias EventLogBox = SnapshotBox<SecurityEventRecord>

extension Handles {
    static let eventLogs = HandleTable<EventLogBox>(tag: 0x60)
}

// MARK: - Security event log

/// Takes a snapshot of the security event log, newest first: one entry per event of a
/// `passcode_log_kind` kind (`passcode_event_log_kind_name` names each). Each event is written in the same
/// transaction as the change it records, carries its wall-clock time (display only) and never a
/// secret. The log keeps the newest 1,000 events of the last 90 days; deleting the account empties it.
/// In service mode the snapshot is the log passcoded keeps, read in one call; the snapshot
/// calls then ask nothing of the service.
/// - Parameters:
///   - store: The store.
///   - out_log: Receives the snapshot; release it with `passcode_event_log_free`.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_event_log_new)  // man: passcode-events
public func passcode_event_log_new(_ store: OpaquePointer?, _ out_log: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out_log?.pointee = nil
    return withBackend(store) { (s) throws(PasscodeError) in
        guard let out_log else { throw PasscodeError.misuse("the out pointer is NULL") }
        out_log.pointee = Handles.eventLogs.add(EventLogBox(try s.events()))
    }
}

/// The number of events in a snapshot.
/// - Parameters:
///   - log: The snapshot.
/// - Returns: The count; 0 for NULL or an invalid snapshot.
@c(passcode_event_log_count)  // man: passcode-events
public func passcode_event_log_count(_ log: OpaquePointer?) -> UInt {
    UInt(Handles.eventLogs.get(log)?.items.count ?? 0)
}

/// One event of a snapshot. The detail belongs to the snapshot and lives until it is freed.
/// - Parameters:
///   - log: The snapshot.
///   - index: 0 (the newest) to count - 1.
///   - out_kind: Receives a `passcode_log_kind`; may be NULL (as may every out pointer here).
///   - out_wall_ms: Receives the wall-clock time, milliseconds since 1970.
///   - out_detail: Receives the detail: a lockout's seconds, "setting old -> new", a session id, or "".
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (index out of range), `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_event_log_get)  // man: passcode-events
public func passcode_event_log_get(_ log: OpaquePointer?, _ index: UInt, _ out_kind: UnsafeMutablePointer<Int32>?,
                                   _ out_wall_ms: UnsafeMutablePointer<Int64>?,
                                   _ out_detail: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    guard let box = Handles.eventLogs.get(log) else { return Status.errInvalidHandle.rawValue }
    guard index < UInt(box.items.count) else { return Status.errMisuse.rawValue }
    let e = box.items[Int(index)]
    out_kind?.pointee = e.kind.rawValue
    out_wall_ms?.pointee = e.wallMs
    out_detail?.pointee = box.keep(e.detail)
    return Status.ok.rawValue
}

/// One event of a snapshot in words, as codes: part 0 is the event's name
/// (`PASSCODE_MESSAGE_LOG_FAILED_ATTEMPT`...), or for a setting change the change in words
/// ("two_factor_enabled 1 -> 0": `PASSCODE_MESSAGE_TWO_FACTOR_OFF`; a time in seconds, minutes or
/// hours as its number), or `PASSCODE_MESSAGE_DEFAULTS_RESTORED` when a new passcode put settings
/// back to their safe defaults: then parts 1 on are each of those changes. After the last part:
/// `PASSCODE_MESSAGE_NONE`. passcode_message_text() gives each in the host's language.
/// - Parameters:
///   - log: The snapshot.
///   - index: 0 (the newest) to count - 1.
///   - part: 0 for the event, 1 on for the changes a DEFAULTS_RESTORED lists.
///   - out_message: Receives a `passcode_message`.
///   - out_number: Receives the number in it (0 when none); may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (index out of range, NULL out_message),
///   `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_event_log_message)  // man: passcode-events
public func passcode_event_log_message(_ log: OpaquePointer?, _ index: UInt, _ part: UInt,
                                       _ out_message: UnsafeMutablePointer<Int32>?, _ out_number: UnsafeMutablePointer<Int64>?) -> Int32 {
    guard let box = Handles.eventLogs.get(log) else { return Status.errInvalidHandle.rawValue }
    guard index < UInt(box.items.count), let out_message else { return Status.errMisuse.rawValue }
    let e = box.items[Int(index)]
    let words = Message.logWords(kind: e.kind, detail: e.detail)
    let shown = part < UInt(words.count) ? words[Int(part)] : ShownMessage.none
    out_message.pointee = shown.message.rawValue
    out_number?.pointee = shown.number
    return Status.ok.rawValue
}

/// The name of a security log kind, in lower case with underscores ("failed_attempt"), for a
/// log view or an export.
/// - Parameters:
///   - kind: Any value (an int32_t, for a loop over them).
/// - Returns: A static string owned by the library; NULL for a value that is no
///   `passcode_log_kind` (so `for (k = 0; passcode_event_log_kind_name(k); k++)` visits them all).
@c(passcode_event_log_kind_name)  // man: passcode-events
public func passcode_event_log_kind_name(_ kind: Int32) -> UnsafePointer<CChar>? {
    guard let which = SecurityEvent(checked: kind) else { return nil }
    return CStrings.intern(which.name)
}

/// Releases a snapshot and its strings. NULL does nothing.
/// - Parameters:
///   - log: The snapshot, or NULL.
@c(passcode_event_log_free)  // man: passcode-events
public func passcode_event_log_free(_ log: OpaquePointer?) {
    Handles.eventLogs.remove(log)
}

/// What to tell the user right after an unlock, as Android does ("3 failed attempts since your
/// last unlock"): the failed attempts between the previous unlock and the latest one, and the
/// time of the last of them. While failures follow the latest unlock (still locked), those.
/// In service mode passcoded counts them in its log.
/// - Parameters:
///   - store: The store.
///   - out_failures: Receives the count.
///   - out_last_failure_wall_ms: Receives the wall-clock time of the last failure, 0 when none; may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_failure_summary)  // man: passcode-events
public func passcode_failure_summary(_ store: OpaquePointer?, _ out_failures: UnsafeMutablePointer<Int32>?,
                                     _ out_last_failure_wall_ms: UnsafeMutablePointer<Int64>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard out_failures != nil else { throw PasscodeError.misuse("the out pointer is NULL") }
        let summary = try s.failureSummary()
        try put(out_failures, Int32(clamping: summary.failures))
        out_last_failure_wall_ms?.pointee = summary.lastFailureWallMs ?? 0
    }
}
