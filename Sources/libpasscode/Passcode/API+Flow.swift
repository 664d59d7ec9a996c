// The C ABI for entry flows: the host forwards key presses and draws what the flow reports.
import CPasscodeShims
import PasscodeBackend
import PasscodeCore

/// What a `passcode_flow *` stands for, with the strings it has handed out. Closing the flow's
/// store ends it (`invalidate`): the flow and every secret it held are gone, and each call on
/// the handle is `PASSCODE_ERR_MISUSE` until `passcode_flow_free`.
final class FlowBox: FailureKeeper, @unchecked Sendable {
    private var liveFlow: PasscodeFlow?
    private let lock = Mutex()
    let storeBox: StoreBox
    private var strings: [UnsafeMutablePointer<CChar>] = []
    init(_ flow: PasscodeFlow, _ storeBox: StoreBox) { self.liveFlow = flow; self.storeBox = storeBox }

    /// The flow, while its store is open.
    var flow: PasscodeFlow? { lock.withLock { liveFlow } }

    /// The store was closed: wipe what the flow holds (its digits, its copy of the data key) and let it go.
    func invalidate() {
        let ended = lock.withLock { () -> PasscodeFlow? in
            defer { liveFlow = nil }
            return liveFlow
        }
        ended?.wipe()
    }

    /// A flow's failures are its store's, as `passcode_errmsg(store)` reports them.
    func setFailure(_ text: String?, waitSeconds: Int64, shown: ShownMessage) {
        storeBox.setFailure(text, waitSeconds: waitSeconds, shown: shown)
    }
    deinit { strings.forEach { free($0) } }

    /// A C copy of `text` that lives until the next call that returns a string of this flow.
    func cString(_ text: String, slot: Int) -> UnsafePointer<CChar> {
        while strings.count <= slot { strings.append(strdup("")!) }
        free(strings[slot])
        strings[slot] = strdup(text)!
        return UnsafePointer(strings[slot])
    }
}

extension Handles {
    static let flows = HandleTable<FlowBox>(tag: 0x5e)
}

/// Runs one C call on a flow whose store is still open; after `passcode_close` of its store,
/// every call is `PASSCODE_ERR_MISUSE`, and after `passcode_store_remove` `PASSCODE_ERR_STORE_REMOVED`.
func withFlow(_ handle: OpaquePointer?, _ body: (FlowBox, PasscodeFlow) throws(PasscodeError) -> Void) -> Int32 {
    withHandle(Handles.flows, handle) { (b) throws(PasscodeError) in
        try b.storeBox.checkNotRemoved()  // its store removed (passcode_store_remove): STORE_REMOVED
        guard let f = b.flow else { throw PasscodeError.misuse("the flow's store was closed (passcode_close); free the flow") }
        try body(b, f)
    }
}

// MARK: - Entry flows

/// Starts a flow for one task. A create flow needs no passcode set; unlock, change and disable
/// need one; reset needs a requested code. Closing the store ends its flows (`passcode_close`).
/// In service mode the flow runs in this process and passcoded checks each passcode it
/// submits, with the same steps, prompts and errors; a reset flow answers
/// `PASSCODE_ERR_NO_RESET_CODE` (service mode hands no reset code to the host).
/// - Parameters:
///   - store: The store.
///   - kind: A `passcode_flow_kind` value.
///   - out_flow: Receives the flow; release it with `passcode_flow_free`.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_ALREADY_SET` (create), `PASSCODE_ERR_NO_PASSCODE`,
///   `PASSCODE_ERR_MISUSE` (unknown kind, NULL out), `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
/// Threads: a flow must be used by one thread at a time.
@c(passcode_flow_new)  // man: passcode-flows
public func passcode_flow_new(_ store: OpaquePointer?, _ kind: Int32, _ out_flow: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out_flow?.pointee = nil
    guard let box = Handles.stores.get(store) else { return Status.errInvalidHandle.rawValue }
    return withBackend(store) { (s) throws(PasscodeError) in
        guard let out_flow else { throw PasscodeError.misuse("the out pointer is NULL") }
        guard let k = FlowKind(checked: kind) else { throw PasscodeError.misuse("unknown flow kind \(kind)") }
        let flow = try PasscodeFlow(store: s, kind: k)
        let flowBox = FlowBox(flow, box)
        out_flow.pointee = Handles.flows.add(flowBox)
        if s.isClosed { flowBox.invalidate() }  // a passcode_close on another thread just now
    }
}

/// Releases a flow; digits it held are wiped. NULL does nothing.
/// - Parameters:
///   - flow: The flow, or NULL.
@c(passcode_flow_free)  // man: passcode-flows
public func passcode_flow_free(_ flow: OpaquePointer?) {
    Handles.flows.remove(flow)
}

/// Adds a digit. At full length the entry submits itself (checking the passcode, moving to the
/// next step, or setting the error and growing the shake counter); it never takes an extra digit.
/// - Parameters:
///   - flow: The flow.
///   - digit: 0 to 9.
/// - Returns: `PASSCODE_OK` (whatever the entry led to: read the flow's state), `PASSCODE_ERR_MISUSE`
///   (not 0-9), `PASSCODE_ERR_STATE` (finished or locked out), `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_digit)  // man: passcode-flows
public func passcode_flow_digit(_ flow: OpaquePointer?, _ digit: Int32) -> Int32 {
    withFlow(flow) { (_, f) throws(PasscodeError) in try f.append(digit: Int(digit)) }
}

/// Removes the last digit; does nothing when there is none.
/// - Parameters:
///   - flow: The flow.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_delete)  // man: passcode-flows
public func passcode_flow_delete(_ flow: OpaquePointer?) -> Int32 {
    withFlow(flow) { _, f in f.deleteLast() }
}

/// Cancels the flow: nothing it had not committed changes (a create flow leaves no passcode).
/// - Parameters:
///   - flow: The flow.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_cancel)  // man: passcode-flows
public func passcode_flow_cancel(_ flow: OpaquePointer?) -> Int32 {
    withFlow(flow) { _, f in f.cancel() }
}

/// Re-reads the lockout: call it once a second while locked out to update the countdown; the
/// flow takes digits again when the time is over.
/// - Parameters:
///   - flow: The flow.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_flow_refresh)  // man: passcode-flows
public func passcode_flow_refresh(_ flow: OpaquePointer?) -> Int32 {
    withFlow(flow) { (_, f) throws(PasscodeError) in try f.refresh() }
}

/// The flow's step and result.
/// - Parameters:
///   - flow: The flow.
///   - out_step: Receives a `passcode_flow_step`.
///   - out_result: Receives a `passcode_flow_result`; may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (NULL out_step), `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_state)  // man: passcode-flows
public func passcode_flow_state(_ flow: OpaquePointer?, _ out_step: UnsafeMutablePointer<Int32>?, _ out_result: UnsafeMutablePointer<Int32>?) -> Int32 {
    withFlow(flow) { (_, f) throws(PasscodeError) in
        try put(out_step, f.step.rawValue)
        out_result?.pointee = f.result.rawValue
    }
}

/// The dots to draw: how many are filled, and how many there are in this step.
/// - Parameters:
///   - flow: The flow.
///   - out_filled: Receives the digits entered so far.
///   - out_length: Receives the digits this step takes; may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_dots)  // man: passcode-flows
public func passcode_flow_dots(_ flow: OpaquePointer?, _ out_filled: UnsafeMutablePointer<Int32>?, _ out_length: UnsafeMutablePointer<Int32>?) -> Int32 {
    withFlow(flow) { (_, f) throws(PasscodeError) in
        try put(out_filled, Int32(f.filled))
        out_length?.pointee = Int32(f.length)
    }
}

/// The prompt to show, e.g. "Enter current passcode", in the host's language
/// (passcode_message_text(); `passcode_flow_messages` gives its code).
/// - Parameters:
///   - flow: The flow.
///   - out: Receives a string owned by the flow, valid until the next call on it that returns a prompt.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_prompt)  // man: passcode-flows
public func passcode_flow_prompt(_ flow: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    withFlow(flow) { (b, f) throws(PasscodeError) in try put(out, b.cString(Localized.text(f.promptMessage), slot: 0)) }
}

/// The error line to show ("" when none): "Incorrect passcode", "Passcodes don't match. Try
/// again.", the weak-passcode reason, the lockout time, in the host's language
/// (passcode_message_text(); `passcode_flow_messages` gives its code and number). It never
/// contains typed digits.
/// - Parameters:
///   - flow: The flow.
///   - out: Receives a string owned by the flow, valid until the next call on it that returns an error.
///   - out_status: Receives the `passcode_status` of the last submitted entry; may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_error)  // man: passcode-flows
public func passcode_flow_error(_ flow: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ out_status: UnsafeMutablePointer<Int32>?) -> Int32 {
    withFlow(flow) { (b, f) throws(PasscodeError) in
        try put(out, b.cString(Localized.text(f.error), slot: 1))
        out_status?.pointee = f.lastError?.status.rawValue ?? Status.ok.rawValue
    }
}

/// The shake counter: it grows by one at every error; shake the dots when it changes.
/// - Parameters:
///   - flow: The flow.
///   - out: Receives the count.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_shakes)  // man: passcode-flows
public func passcode_flow_shakes(_ flow: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withFlow(flow) { (_, f) throws(PasscodeError) in try put(out, Int32(clamping: f.shakes)) }
}

/// Seconds left in the lockout while the flow's step is `PASSCODE_FLOW_STEP_LOCKED_OUT`, else 0.
/// - Parameters:
///   - flow: The flow.
///   - out: Receives the seconds.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_flow_lockout_remaining)  // man: passcode-flows
public func passcode_flow_lockout_remaining(_ flow: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withFlow(flow) { (_, f) throws(PasscodeError) in try put(out, try f.lockoutSeconds()) }
}

/// The codes of what the flow shows now: its prompt and its error line, with the number in the
/// error (a lockout's seconds or minutes, the tries a reset code has left), for a host that shows
/// its own text for each code; passcode_message_text() gives the library's. The codes are the
/// same in every language.
/// - Parameters:
///   - flow: The flow.
///   - out_prompt: Receives the prompt's `passcode_message` (never NONE).
///   - out_error: Receives the error line's `passcode_message` (NONE when there is none); may be NULL.
///   - out_number: Receives the number of the error line (0 when none); may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (NULL out_prompt), `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_messages)  // man: passcode-flows
public func passcode_flow_messages(_ flow: OpaquePointer?, _ out_prompt: UnsafeMutablePointer<Int32>?,
                                   _ out_error: UnsafeMutablePointer<Int32>?, _ out_number: UnsafeMutablePointer<Int64>?) -> Int32 {
    withFlow(flow) { (_, f) throws(PasscodeError) in
        try put(out_prompt, f.promptMessage.rawValue)
        out_error?.pointee = f.error.message.rawValue
        out_number?.pointee = f.error.number
    }
}
