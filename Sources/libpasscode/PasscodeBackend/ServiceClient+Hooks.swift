// Service mode's side of the host's callbacks and hooks: they stay in the host; the handle tells
// passcoded which ones it has (SetHooks, tied to this handle's bus connection), and passcoded's
// core asks them where the embedded core asks them, by calling the object /org/libpasscode/Hook
// of this connection while the call that triggers them waits for its reply (ServiceClient.call
// processes the connection until then). Hooks that can refuse (setting, lifecycle, session) are
// method calls whose reply is "" (allowed) or the refusal's text; notifications that cannot
// refuse (logout, notice, account deleted) are calls that expect no reply, sent before the
// reply of the call that caused them: kept until that reply came, and run then, in the host,
// before that call returns (so they may call the library, as embedded).
import CPasscodeShims
import PasscodeBus
import PasscodeCore

/// Marks the thread running a host callback for the service: a call into the library from
/// there is refused (misuse) rather than left to wait behind the call that asked the hook.
enum HostHookThread {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    static var active: Bool { pthread_getspecific(key) != nil }

    static func run<R>(_ body: () -> R) -> R {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, nil) }
        return body()
    }
}

/// The reply a call waits for (set by `ServiceClient.replyHandler`).
final class PendingReply {
    let bus: SdBusLibrary
    var reply: OpaquePointer?
    init(_ bus: SdBusLibrary) { self.bus = bus }
    deinit { if let reply { _ = bus.messageUnref(reply) } }
}

extension ServiceClient {
    static let hookPath = BusNames.hookPath
    static let hookInterface = BusNames.hookInterface

    /// sd_bus_call_async's callback: keeps the reply (or the error sd-bus made: a timeout, a
    /// disconnection) for the loop in `callLocked`.
    static let replyHandler: SdBusLibrary.Handler = { reply, userdata, _ in
        guard let userdata, let reply else { return 0 }
        let pending = Unmanaged<PendingReply>.fromOpaque(userdata).takeUnretainedValue()
        if pending.reply == nil { pending.reply = pending.bus.messageRef(reply) }
        return 0
    }

    /// The hook object's handler: a call of passcoded, while one of this handle's calls waits.
    static let hookHandler: SdBusLibrary.Handler = { m, userdata, _ in
        guard let m, let userdata else { return 0 }
        return Unmanaged<ServiceClient>.fromOpaque(userdata).takeUnretainedValue().answerHook(m)
    }

    /// Replaces some of the host's callbacks, and tells passcoded which ones the handle now has
    /// (only when that changed). On failure the handle keeps the callbacks it had.
    package func updateHooks(_ change: (inout Hooks) -> Void) throws(PasscodeError) {
        let (old, new) = lock.withLock { () -> (Hooks, Hooks) in
            let old = hostHooks
            change(&hostHooks)
            return (old, hostHooks)
        }
        let flags = HookFlags.of(new)
        guard flags != HookFlags.of(old) else { return }
        do {
            try callSetHooks(flags: flags)
        } catch {
            lock.withLock { hostHooks = old }
            throw error
        }
    }

    /// Answers one call of passcoded to the hook object (on the thread whose call is waiting,
    /// with `lock` held by that call). Only passcoded's own connection is answered.
    func answerHook(_ m: OpaquePointer) -> Int32 {
        guard let s = bus.sender(m), let name = serviceName, String(cString: s) == name else {
            return refuse(m, "org.freedesktop.DBus.Error.AccessDenied", "only passcoded asks this object")
        }
        guard let i = bus.interface(m), String(cString: i) == ServiceClient.hookInterface, let mm = bus.member(m) else {
            return refuse(m, "org.freedesktop.DBus.Error.UnknownMethod", "no such method")
        }
        let hooks = hostHooks
        var answer: String?
        // Read and typed as the XML defines the hooks (readHostHook, ServiceClient+Passcode1.generated.swift).
        switch readHostHook(m, member: String(cString: mm)) {
        case .unknown:
            return refuse(m, "org.freedesktop.DBus.Error.UnknownMethod", "no such method")
        case .badArguments:
            return badArguments(m)
        case .ask(let question):
            switch question {
            case .settingChange(let key, let old, let new):
                if let hook = hooks.settingChange { answer = HostHookThread.run { hook(key, old, new) } }
            case .lifecycle(let event):
                if let hook = hooks.lifecycle { answer = HostHookThread.run { hook(event) } }
            case .sessionSignOut(let id):
                if let hook = hooks.signOutSession { answer = HostHookThread.run { hook(id) } }
            }
        // Notifications run once the call that caused them has its reply (`runNotices`), before
        // it returns: nothing waits on them then, so they may call the library, as embedded.
        case .tell(let notice):
            switch notice {
            case .logout(let reason):
                if let hook = hooks.logout { notices.append { hook(reason) } }
            case .notice(let value):
                if let hook = hooks.notify { notices.append { hook(value) } }
            case .accountDeleted:
                if let hook = hooks.accountDeleted { notices.append { hook() } }
            }
        }
        guard bus.expectReply(m) > 0 else { return 1 }
        var reply: OpaquePointer?
        var r = bus.newMethodReturn(m, &reply)
        guard r >= 0, let reply else { return r }
        defer { _ = bus.messageUnref(reply) }
        // The host's text as callHook bounds it (255 bytes); "" is "allowed".
        r = (answer ?? "").withCString { bus.appendBasic(reply, CChar(UInt8(ascii: "s")), $0) }
        if r < 0 { return r }
        return bus.send(connection, reply, nil)
    }

    /// Runs the notifications the service sent during the call that just returned, in order,
    /// with no lock held and no call waiting.
    func runNotices() {
        while true {
            let next: (() -> Void)? = lock.withLock { notices.isEmpty ? nil : notices.removeFirst() }
            guard let next else { return }
            next()
        }
    }

    /// A hook's string argument (readHostHook).
    func hookText(_ m: OpaquePointer) -> String? {
        var p: UnsafePointer<CChar>?
        guard bus.readBasic(m, CChar(UInt8(ascii: "s")), &p) > 0, let p else { return nil }
        return String(cString: p)
    }

    /// A hook's int32 argument (readHostHook).
    func hookInt32(_ m: OpaquePointer) -> Int32? {
        var v: Int32 = 0
        guard bus.readBasic(m, CChar(UInt8(ascii: "i")), &v) > 0 else { return nil }
        return v
    }

    private func badArguments(_ m: OpaquePointer) -> Int32 {
        refuse(m, "org.freedesktop.DBus.Error.InvalidArgs", "the hook's arguments are not the ones expected")
    }

    private func refuse(_ m: OpaquePointer, _ name: String, _ message: String) -> Int32 {
        guard bus.expectReply(m) > 0 else { return 1 }
        return replyError(m, name: name, message: message)
    }
}
