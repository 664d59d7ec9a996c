// passcoded's methods for callbacks and hooks asked of the host. The host's callbacks stay in
// the host: a handle says which ones it has (SetHooks, tied to its bus connection, forgotten when
// that connection goes), and every later call from that connection runs with stand-ins for them
// (`HookRelay`), which the store answers for that call alone (ProofBook.carried) and the core
// asks exactly where it asks the embedded ones. A stand-in that can refuse (setting, lifecycle,
// session) sends a method call to the caller's own connection, object /org/libpasscode/Hook,
// and waits for the answer (at most `HookRelay.timeoutSeconds`; no answer is a refusal,
// HOOK_FAILED); the notifications that cannot refuse (logout, notice, account deleted) are sent
// expecting no reply, before the reply of the call that caused them, so they run in the host
// before that call returns and the worker never waits on a host for them. sd-bus is not
// thread-safe: a worker hands its call to the bus thread (`HookOutbox`) and waits; only the bus
// thread touches the connection.
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

extension Service {
    func handleSetHooks(_ call: BusCall, appID app: AppID, flags: UInt32) throws -> Prepared {
        // Recorded here, on the bus thread (the registry is the bus thread's); the job only answers.
        guard flags & ~HookFlags.all == 0 else {
            throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "unknown hook flags \(flags)")
        }
        try HookRegistry.shared.register(call.message, uid: call.caller, app: app, flags: flags)
        return Prepared(uid: call.caller) { [] }
    }

    /// `work` with the caller's hooks installed while it runs, when the connection that sent `m`
    /// registered some for `uid` (bus thread).
    static func withHostHooks(_ m: OpaquePointer, uid: uid_t, _ work: @escaping @Sendable () throws -> [Value])
        -> @Sendable () throws -> [Value] {
        guard let relay = HookRegistry.shared.relay(for: m, uid: uid) else { return work }
        return { try relay.whileCurrent(work) }
    }
}

/// Who registered hooks: by unique bus name (never reused on a bus), each with its uid and a
/// sd_bus_track that drops the entry when the connection goes. Bus thread only.
final class HookRegistry: @unchecked Sendable {
    static let shared = HookRegistry()
    /// Bounds: the system bus lets a uid have 256 connections.
    static let maxPerUID = 256
    static let maxEntries = 8192

    private struct Entry {
        let uid: uid_t
        /// The store the hooks are for (SetHooks' app id): the logout of its passcode is told to
        /// every connection of the uid registered for it (`logoutListeners`).
        var app: AppID
        var flags: UInt32
        let track: OpaquePointer
    }
    private var entries: [String: Entry] = [:]

    func register(_ m: OpaquePointer, uid: uid_t, app: AppID, flags: UInt32) throws {
        guard let s = sd_bus_message_get_sender(m) else {
            throw CallError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "the caller's bus name cannot be established")
        }
        let sender = String(cString: s)
        if flags == 0 {
            remove(sender)
            return
        }
        if var e = entries[sender] {
            e.flags = flags
            e.app = app
            entries[sender] = e
            return
        }
        // The global bound never refuses a uid's first entry (reserved: 32 uids at their own bound
        // would otherwise leave the next uid no hooks, and so no "forgot passcode").
        let mine = entries.values.lazy.filter({ $0.uid == uid }).count
        guard entries.count < HookRegistry.maxEntries || mine == 0, mine < HookRegistry.maxPerUID else {
            throw CallError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: "too many connections have hooks registered")
        }
        var track: OpaquePointer?
        var r = sd_bus_track_new(sd_bus_message_get_bus(m), &track, { track, _ in
            HookRegistry.shared.gone(track)
            return 0
        }, nil)
        guard r >= 0, let track else {
            throw CallError(name: "org.freedesktop.DBus.Error.NoMemory", message: "the hooks cannot be registered")
        }
        r = sd_bus_track_add_sender(track, m)
        guard r >= 0 else {
            sd_bus_track_unref(track)
            throw CallError(name: "org.freedesktop.DBus.Error.Failed", message: "the caller's connection cannot be followed")
        }
        entries[sender] = Entry(uid: uid, app: app, flags: flags, track: track)
    }

    private func remove(_ sender: String) {
        if let e = entries.removeValue(forKey: sender) { sd_bus_track_unref(e.track) }
    }

    /// The tracked connection went away.
    private func gone(_ track: OpaquePointer?) {
        if let sender = entries.first(where: { $0.value.track == track })?.key { remove(sender) }
    }

    /// The stand-ins for the hooks that `m`'s sender registered for `uid`, if any.
    func relay(for m: OpaquePointer, uid: uid_t) -> HookRelay? {
        guard let s = sd_bus_message_get_sender(m) else { return nil }
        let sender = String(cString: s)
        guard let e = entries[sender], e.uid == uid else { return nil }
        return HookRelay(destination: sender, uid: uid, app: e.app, flags: e.flags)
    }

    /// The connections of `uid` that registered a logout hook for its store `app`, but `except`.
    func logoutListeners(uid: uid_t, app: AppID, except: String) -> [String] {
        entries.filter { $0.key != except && $0.value.uid == uid && $0.value.app == app && $0.value.flags & HookFlags.logout != 0 }
            .map { $0.key }.sorted()
    }
}

/// One call's stand-ins for its caller's hooks; current on the worker thread while the call runs.
final class HookRelay: @unchecked Sendable {
    /// How long the service waits for a host's hook; no answer by then is a refusal.
    static let timeoutSeconds: UInt64 = 10
    /// The refusal when every standby thread, or the caller's uid's share of them, already waits
    /// on a host's hook (Scheduler.whileWaiting).
    static let busy = "too many hosts' hooks are being asked at once; try again"
    /// The longest refusal text kept (the embedded hooks' buffer: 256 bytes with the NUL).
    static let maxMessageBytes = 255

    let destination: String
    let uid: uid_t
    let app: AppID
    let flags: UInt32

    init(destination: String, uid: uid_t, app: AppID, flags: UInt32) {
        self.destination = destination
        self.uid = uid
        self.app = app
        self.flags = flags
    }

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    func whileCurrent<R>(_ body: () throws -> R) rethrows -> R {
        pthread_setspecific(HookRelay.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(HookRelay.key, nil) }
        return try body()
    }

    /// The stand-ins of the call running on this worker thread, if its connection registered
    /// hooks: the stores it uses ask them for this call alone (ProofBook.carried), never from
    /// the shared handle, where another connection's call could find them.
    static var current: HookRelay? {
        pthread_getspecific(key).map { Unmanaged<HookRelay>.fromOpaque($0).takeUnretainedValue() }
    }

    var hooks: Hooks {
        var h = Hooks()
        if flags & HookFlags.settings != 0 {
            h.settingChange = { [self] key, old, new in ask(.settingChange(key: key, old: old, new: new)) }
        }
        if flags & HookFlags.lifecycle != 0 { h.lifecycle = { [self] event in ask(.lifecycle(event: event)) } }
        if flags & HookFlags.session != 0 { h.signOutSession = { [self] id in ask(.sessionSignOut(id: id)) } }
        // The logout (the passcode gone: forgot, the forced logout) is told to the caller, and to
        // every other connection of the uid with a logout hook for this store: an app whose
        // passcode another process of the user made go hears it as if it had asked.
        if flags & HookFlags.logout != 0 {
            h.logout = { [self] reason in
                tell(.logout(reason: reason))
                HookOutbox.shared.post(HookRequest(destination: destination, notice: .logout(reason: reason), othersOf: (uid, app)))
            }
        }
        if flags & HookFlags.notice != 0 { h.notify = { [self] notice in tell(.notice(notice: notice)) } }
        if flags & HookFlags.accountDeleted != 0 { h.accountDeleted = { [self] in tell(.accountDeleted) } }
        return h
    }

    /// Asks the host and waits: nil (allowed) or the refusal's text.
    private func ask(_ question: HostQuestion) -> String? {
        let request = HookRequest(destination: destination, question: question)
        // The wait holds a thread, not a turn: the other uids' calls, and this uid's other
        // connections', run meanwhile (Scheduler).
        guard let scheduler = Scheduler.shared else { return HookRelay.busy }
        return scheduler.whileWaiting {
            HookOutbox.shared.post(request)
            return request.wait(seconds: HookRelay.timeoutSeconds + 5)
        } ?? HookRelay.busy
    }

    private func tell(_ notice: HostNotice) {
        HookOutbox.shared.post(HookRequest(destination: destination, notice: notice))
    }
}

/// A call to a host's hook, from a worker to the bus thread and its answer back: a question the
/// host answers or a notification, typed as the XML defines them (HostQuestion, HostNotice).
final class HookRequest: @unchecked Sendable {
    let destination: String
    let member: String
    let arguments: [HookArgument]
    let expectReply: Bool
    /// The notification, to send again to the other connections (`othersOf`).
    let notice: HostNotice?
    /// A notification for the connections of this uid registered for this store, but
    /// `destination` (which was told already): HookOutbox sends one to each.
    let othersOf: (uid: uid_t, app: AppID)?
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var done = false
    private var answer: String?

    /// A hook the host answers; the worker waits for it.
    convenience init(destination: String, question: HostQuestion) {
        self.init(destination: destination, member: question.member, arguments: question.arguments, notice: nil, othersOf: nil)
    }

    /// A notification, sent expecting no reply.
    convenience init(destination: String, notice: HostNotice, othersOf: (uid: uid_t, app: AppID)? = nil) {
        self.init(destination: destination, member: notice.member, arguments: notice.arguments, notice: notice, othersOf: othersOf)
    }

    private init(destination: String, member: String, arguments: [HookArgument], notice: HostNotice?,
                 othersOf: (uid: uid_t, app: AppID)?) {
        self.destination = destination
        self.member = member
        self.arguments = arguments
        self.expectReply = notice == nil
        self.notice = notice
        self.othersOf = othersOf
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// The answer: nil (allowed) or a refusal (bus thread; the first answer counts).
    func finish(_ refusal: String?) {
        pthread_mutex_lock(mutex)
        if !done {
            done = true
            answer = refusal
            pthread_cond_broadcast(cond)
        }
        pthread_mutex_unlock(mutex)
    }

    /// Waits for `finish` (worker); a bus thread that never answers is a refusal too.
    func wait(seconds: UInt64) -> String? {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        deadline.tv_sec += Int(seconds)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !done {
            if pthread_cond_timedwait(cond, mutex, &deadline) == ETIMEDOUT && !done {
                done = true
                answer = HookRequest.noAnswer
            }
        }
        return answer
    }

    static let noAnswer = "the host did not answer its hook within \(HookRelay.timeoutSeconds) seconds"

    /// The refusal a reply stands for: nil when the caller's own connection answered "".
    static func refusal(of reply: OpaquePointer?, from destination: String) -> String? {
        guard let reply else { return noAnswer }
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            let name = sd_bus_message_get_error(reply)?.pointee.name.map { String(cString: $0) } ?? ""
            if name == "org.freedesktop.DBus.Error.Timeout" || name == "org.freedesktop.DBus.Error.NoReply" { return noAnswer }
            return "the host's hook could not be asked (\(name.prefix(96)))"
        }
        // Only the caller's own connection answers for it.
        guard let s = sd_bus_message_get_sender(reply), String(cString: s) == destination else {
            return "the answer to the host's hook did not come from the caller"
        }
        var p: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "s")), &p) > 0, let p else {
            return "the host's answer to its hook is not the one expected"
        }
        let n = strnlen(p, HookRelay.maxMessageBytes)
        return n == 0 ? nil : String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
    }
}

/// The workers' calls to hosts, sent by the bus thread (`drain`, from passcoded's main loop).
final class HookOutbox: @unchecked Sendable {
    static let shared = HookOutbox()
    /// Written to wake the bus thread (the scheduler's eventfd; set by main before any call).
    nonisolated(unsafe) var wakeFD: Int32 = -1
    private let mutex = Mutex()
    private var waiting: [HookRequest] = []

    func post(_ request: HookRequest) {
        mutex.withLock { waiting.append(request) }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Sends every waiting call (bus thread). Called after the finished answers were taken and
    /// before they are sent, so a notification goes before the reply of the call that caused it.
    func drain(_ bus: OpaquePointer) {
        let requests = mutex.withLock { () -> [HookRequest] in
            let taken = waiting
            waiting = []
            return taken
        }
        for request in requests {
            guard let others = request.othersOf else {
                send(request, bus)
                continue
            }
            for listener in HookRegistry.shared.logoutListeners(uid: others.uid, app: others.app, except: request.destination) {
                if let notice = request.notice { send(HookRequest(destination: listener, notice: notice), bus) }
            }
            request.finish(nil)
        }
    }

    private func send(_ request: HookRequest, _ bus: OpaquePointer) {
        var m: OpaquePointer?
        var r = sd_bus_message_new_method_call(bus, &m, request.destination, BusNames.hookPath, BusNames.hookInterface, request.member)
        guard r >= 0, let m else {
            request.finish("the host's hook could not be asked (\(String(cString: strerror(-r))))")
            return
        }
        defer { sd_bus_message_unref(m) }
        for argument in request.arguments where r >= 0 {
            switch argument {
            case .text(let t): r = t.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) }
            case .int32(var v): r = sd_bus_message_append_basic(m, CChar(UInt8(ascii: "i")), &v)
            }
        }
        guard r >= 0 else {
            request.finish("the host's hook could not be asked (\(String(cString: strerror(-r))))")
            return
        }
        guard request.expectReply else {
            sd_bus_message_set_expect_reply(m, 0)
            sd_bus_send(bus, m, nil)
            request.finish(nil)
            return
        }
        let userdata = Unmanaged.passRetained(request).toOpaque()
        r = sd_bus_call_async(bus, nil, m, { reply, userdata, _ in
            let request = Unmanaged<HookRequest>.fromOpaque(userdata!).takeRetainedValue()
            request.finish(HookRequest.refusal(of: reply, from: request.destination))
            return 0
        }, userdata, HookRelay.timeoutSeconds * 1_000_000)
        if r < 0 {
            Unmanaged<HookRequest>.fromOpaque(userdata).release()
            request.finish("the host's hook could not be asked (\(String(cString: strerror(-r))))")
        }
    }
}
