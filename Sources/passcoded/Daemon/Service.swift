// The methods of org.libpasscode.Passcode1 (service/org.libpasscode.Passcode1.xml): the generated
// dispatch (Passcode1.generated.swift) reads each call's arguments and hands them to its handler
// here or in Service+<Area>.swift, which takes the caller's uid from the bus and calls the same
// PasscodeStore façade the C API calls. Statuses become D-Bus errors
// org.libpasscode.Error.<Name> whose message starts with "status N: " (PasscodeBus's BusError).
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

/// A failure before the core is reached (a bad argument, a caller without the right).
struct CallError: Error {
    let name: String
    let message: String
}

final class Service {
    let stores: StoreRoot
    let scheduler: Scheduler
    /// The longest string argument accepted (BusLimits: the client knows the same bound).
    static let maxArgumentBytes = BusLimits.maxArgumentBytes

    init(stores: StoreRoot, scheduler: Scheduler) {
        self.stores = stores
        self.scheduler = scheduler
    }

    /// Takes one call; sd-bus has checked its signature against the table. The arguments are
    /// read here, on the bus thread; the work runs on a worker (`Scheduler`), and its answer is
    /// sent from the bus thread by `finish`.
    func handle(_ m: OpaquePointer, member: String, error out: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        // Every call may carry a passcode: sd-bus wipes a sensitive message's memory when it is
        // freed (and marks its reply so too). The copies read from it are wiped buffers.
        sd_bus_message_sensitive(m)
        do {
            let caller = try callerUID(m)
            let sender = sd_bus_message_get_sender(m).map { String(cString: $0) }
            // A connection's first call waits, parked, until its sandbox is read (Service+Sandbox.swift):
            // the bus thread goes on meanwhile, and runs it again here once the reader answered.
            if let sender, SandboxBook.shared.known(m) == nil {
                if let refusal = SandboxBook.shared.park(m, uid: caller, sender: sender) {
                    throw CallError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: refusal)
                }
                return 1
            }
            let job = try prepare(member, m, caller: caller)
            sd_bus_message_ref(m)  // until `finish` has answered it
            // The caller's hooks, when its connection registered some, are asked from the work (Service+Hooks.swift).
            // ...and the proof of a passcode its connection entered last (Proofs.swift).
            let work = ProofBook.forCaller(sender, Service.withHostHooks(m, uid: job.uid, job.work))
            // Queued for its connection: the uid's connections take turns (Scheduler).
            if let refusal = scheduler.submit(uid: job.uid, connection: sender ?? "", Job(message: MessageRef(m), work: work)) {
                sd_bus_message_unref(m)
                throw CallError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: refusal)
            }
            return 1
        } catch {
            let (name, message) = errorReply(error)
            return sd_bus_error_set(out, name, message)
        }
    }

    /// Runs again a call parked until its connection's sandbox was read, answering a refusal itself.
    func rerun(_ m: OpaquePointer) {
        let member = sd_bus_message_get_member(m).map { String(cString: $0) } ?? ""
        var e = sd_bus_error(name: nil, message: nil, _need_free: 0)
        let r = handle(m, member: member, error: &e)
        if r < 0 {
            if sd_bus_error_is_set(&e) != 0 { sd_bus_reply_method_error(m, &e) } else { sd_bus_reply_method_errno(m, r, nil) }
        }
        sd_bus_error_free(&e)
    }

    /// Sends the answer of a call a worker finished (on the bus thread).
    func finish(_ m: OpaquePointer, _ result: Result<[Value], Error>) {
        switch result {
        case .success(let values):
            // A reply that cannot be built (a store's text sd-bus refuses) is an error, not silence.
            if send(m, values) < 0 {
                let (name, message) = BusError.reply(status: BusStatus.errInternal, message: "the answer cannot be sent")
                finish(m, .failure(CallError(name: name, message: message)))
            }
        case .failure(let failure):
            let (name, message) = errorReply(failure)
            var e = sd_bus_error(name: nil, message: nil, _need_free: 0)
            sd_bus_error_set(&e, name, message)
            sd_bus_reply_method_error(m, &e)
            sd_bus_error_free(&e)
        }
    }

    /// The D-Bus error name and message of a failure: a status as org.libpasscode.Error.<Name>
    /// with "status N: " before the core's message.
    func errorReply(_ error: Error) -> (String, String) {
        switch error {
        case let e as CallError:
            return (e.name, e.message)
        case let e as PasscodeError:
            return BusError.reply(status: e.busStatus, message: Service.withoutStorePaths(e.message, root: stores.root))
        default:
            return BusError.reply(status: BusStatus.errInternal, message: "internal error")
        }
    }

    /// `message` without the service's folders: a caller never learns where the stores are kept
    /// (`<root>/1000/x.db` becomes `x.db`; the root alone, "the service's store folder").
    static func withoutStorePaths(_ message: String, root: String) -> String {
        let text = Array(message.utf8), prefix = Array(root.utf8)
        guard !prefix.isEmpty else { return message }
        var out: [UInt8] = []
        var i = 0
        while i < text.count {
            guard text.count - i >= prefix.count, Array(text[i..<i + prefix.count]) == prefix else {
                out.append(text[i])
                i += 1
                continue
            }
            i += prefix.count
            // "/<uid>/" after the root goes too: the caller's own folder, named by the caller's uid.
            var j = i
            if j < text.count && text[j] == UInt8(ascii: "/") {
                j += 1
                let digits = j
                while j < text.count && text[j] >= 48 && text[j] <= 57 { j += 1 }
                if j > digits && j < text.count && text[j] == UInt8(ascii: "/") {
                    i = j + 1
                    continue
                }
            }
            out += Array("the service's store folder".utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    func callerUID(_ m: OpaquePointer) throws -> uid_t {
        var uid: uid_t = 0
        let r = passcode_bus_sender_uid(m, &uid)
        guard r >= 0 else { throw CallError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "the caller's uid cannot be established") }
        return uid
    }

    /// One reply value, appended in order.
    enum Value: Sendable {
        case bool(Bool), int32(Int32), uint32(UInt32), int64(Int64), uint64(UInt64), string(String)
        /// An array of structs `a(<fields>)`, each struct's values in order.
        case structs(String, [[Value]])
        /// An array of `element` ("(sx)": each element's values are a struct's fields; "s": one value each).
        case array(element: String, [[Value]])
        /// The data key, as 'ay': its reply is marked sensitive.
        case key(SecretBytes)
    }

    /// A call's arguments, read; `work` runs later on a worker, for the stores of `uid`.
    struct Prepared {
        let uid: uid_t
        let work: @Sendable () throws -> [Value]
    }

    private func prepare(_ member: String, _ m: OpaquePointer, caller: uid_t) throws -> Prepared {
        // Each method's arguments are read by the generated dispatch, which hands them to its
        // handler (below, and in Service+<Area>.swift).
        if let prepared = try dispatchPasscode1(member, m, caller: caller) { return prepared }
        throw CallError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(member.prefix(64))")
    }
    static func state(_ stores: StoreRoot, uid: uid_t, app: AppID) throws -> [Value] {
        try stores.withStoreForQuery(uid: uid, appID: app) { s in
            [.bool(try s.isPasscodeSet()), .bool(try s.isLockEnabled()),
             .uint32(UInt32(clamping: try s.failedAttempts())), .int64(try s.lockoutRemainingSeconds()),
             .bool(try s.isResetRequired())]
        }
    }

    // MARK: - Arguments

    func check(_ r: Int32, _ what: String) throws {
        if r <= 0 { throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "cannot read the argument \(what)") }
    }

    /// A string argument up to `maxArgumentBytes` (longer: InvalidArgs, nothing opened).
    func readString(_ m: OpaquePointer, _ what: String) throws -> String {
        var p: UnsafePointer<CChar>?
        try check(passcode_bus_read_string(m, &p), what)
        guard let p else { throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is missing") }
        guard strnlen(p, Service.maxArgumentBytes + 1) <= Service.maxArgumentBytes else {
            throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is longer than \(Service.maxArgumentBytes) bytes")
        }
        return String(cString: p)
    }

    /// A passcode argument, copied straight into a buffer that is wiped when released.
    func readSecret(_ m: OpaquePointer, _ what: String, mayBeEmpty: Bool = false) throws -> SecretBytes {
        var p: UnsafePointer<CChar>?
        try check(passcode_bus_read_string(m, &p), what)
        guard let p else { throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is missing") }
        let n = strnlen(p, Service.maxArgumentBytes + 1)
        guard n <= Service.maxArgumentBytes else {
            throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is longer than \(Service.maxArgumentBytes) bytes")
        }
        if n == 0 && !mayBeEmpty { throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is empty") }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: p, count: n))
    }

    /// A basic argument of the D-Bus type `type` ("i", "u", "x", "b": an Int32 for a boolean).
    func readBasic<T>(_ m: OpaquePointer, _ type: Unicode.Scalar, _ initial: T, _ what: String) throws -> T {
        var value = initial
        try check(withUnsafeMutableBytes(of: &value) { sd_bus_message_read_basic(m, CChar(UInt8(ascii: type)), $0.baseAddress) }, what)
        return value
    }

    /// A setting, by its stored name.
    func readSetting(_ m: OpaquePointer, _ what: String) throws -> Setting {
        let name = try readString(m, what)
        guard let setting = Setting.allCases.first(where: { $0.spec.key == name }) else {
            throw PasscodeError.invalidSetting("no setting is named \(name.prefix(64))")
        }
        return setting
    }

    // MARK: - Replies

    private func send(_ m: OpaquePointer, _ values: [Value]) -> Int32 {
        var reply: OpaquePointer?
        var r = sd_bus_message_new_method_return(m, &reply)
        guard r >= 0, let reply else { return r }
        defer { sd_bus_message_unref(reply) }
        r = append(reply, values)
        if r < 0 { return r }
        return sd_bus_send(nil, reply, nil)
    }

    private func append(_ reply: OpaquePointer, _ values: [Value]) -> Int32 {
        var r: Int32 = 0
        for value in values {
            switch value {
            case .bool(let b):
                var v: Int32 = b ? 1 : 0
                r = sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "b")), &v)
            case .int32(var v):
                r = sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "i")), &v)
            case .uint32(var v):
                r = sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "u")), &v)
            case .int64(var v):
                r = sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "x")), &v)
            case .uint64(var v):
                r = sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "t")), &v)
            case .string(let text):
                // A D-Bus string ends at its NUL: a text with one inside is cut there.
                r = text.withCString { sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "s")), $0) }
            case .structs(let fields, let items):
                r = append(reply, [.array(element: "(\(fields))", items)])
            case .array(let element, let items):
                r = sd_bus_message_open_container(reply, CChar(UInt8(ascii: "a")), element)
                let fields = element.hasPrefix("(") ? String(element.dropFirst().dropLast()) : nil
                for item in items where r >= 0 {
                    if let fields { r = sd_bus_message_open_container(reply, CChar(UInt8(ascii: "r")), fields) }
                    if r >= 0 { r = append(reply, item) }
                    if r >= 0, fields != nil { r = sd_bus_message_close_container(reply) }
                }
                if r >= 0 { r = sd_bus_message_close_container(reply) }
            case .key(let key):
                r = sd_bus_message_sensitive(reply)
                if r >= 0 { r = key.withBytes { sd_bus_message_append_array(reply, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) } }
            }
            if r < 0 { return r }
        }
        return r
    }
}

// MARK: - The store's passcode, settings and state

extension Service {
    func handleGetState(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) { try Service.state(stores, uid: caller, app: app) }
    }

    func handleGetStateForUser(_ call: BusCall, uid: UInt32, appID app: AppID) throws -> Prepared {
        // Refused as the User* methods refuse another uid: the Permission status, not the bus's
        // AccessDenied (Service+User.swift).
        guard call.caller == 0 else { throw Service.notRoot }
        let stores = self.stores, target = uid
        return Prepared(uid: target) { try Service.state(stores, uid: target, app: app) }
    }

    func handleSetPasscode(_ call: BusCall, appID app: AppID, passcode code: SecretBytes) throws -> Prepared {
        try Service.checkEnrolment(caller: call.caller, app: app)
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { s in
                // A new passcode proved no earlier one: a recipient left from before (set under a
                // passcode since removed) goes in the same transaction (PasscodeStore+Recipient.swift).
                _ = try s.setPasscode(code)
            }
            return []
        }
    }

    func handleVerify(_ call: BusCall, appID app: AppID, passcode code: SecretBytes) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { s in
                _ = try s.verify(code)
                return [.bool(true), .int64(try s.lockoutRemainingSeconds())]
            }
        }
    }

    func handleRemovePasscode(_ call: BusCall, appID app: AppID, current: SecretBytes) throws -> Prepared {
        try Service.checkLoginPasscodeRemoval(caller: call.caller, app: app)
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { try $0.removePasscode(current: current) }
            return []
        }
    }

    func handleGetLockScreen(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStoreForQuery(uid: caller, appID: app) { s in
                let v = try s.lockScreen()
                return [.bool(v.status.locked), .int32(v.status.reason.rawValue), .int64(v.lockoutSeconds),
                        .uint32(UInt32(clamping: v.failedAttempts)), .bool(v.resetRequired), .int32(v.refusal.rawValue),
                        .bool(v.lead), .int32(v.kind.rawValue), .bool(v.passcodeSet), .bool(v.lockEnabled)]
            }
        }
    }

    func handleSetSetting(_ call: BusCall, appID app: AppID, name setting: Setting, value newValue: Int64) throws -> Prepared {
        try Service.checkMaxFailureAction(app: app, setting: setting, value: newValue)
        let stores = self.stores, caller = call.caller
        // A weakening change needs the passcode entered on this connection within 5 minutes
        // (its proof, carried by the store: Proofs.swift), as the core asks it embedded.
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { try $0.set(setting, to: newValue) }
            return []
        }
    }
}
