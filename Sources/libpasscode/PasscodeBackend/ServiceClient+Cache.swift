// Service mode's cached queries, pushed, not polled: the handle asks passcoded once to Watch its
// store (on its connection), and passcoded sends it PropertiesChanged, addressed to that
// connection alone, whenever any process changes the store (passcoded/Service+Properties.swift).
// is_set, lock_state, lock_screen_read and the other queries of GetState and GetLockScreen are
// then answered from what was sent, after draining the connection (sd_bus_process on an idle
// connection: well under a microsecond), so a change is seen by the next query after its signal
// arrived; a call of this handle that changed the store has its signal before its reply. No
// thread of the host's is needed.
//
// The copy is used only while it is current and exact: sent by the passcoded this connection
// checked (its unique name, owned by root: `verifiedService`), for this store's path, with a
// generation newer than the copy's; the service still on the bus (its NameOwnerChanged is
// watched); and clock-free: no field of it depends on when it is read (no lockout recorded, the
// biometric policy settled before its time checks, as the core's lockScreenReading says). A
// lockout countdown and the time-dependent biometric answers are therefore asked of passcoded,
// on its clock, every time, as before. Otherwise (no watch yet, a fork, a connection error, an
// older passcoded without Watch) the query is the bus call it always was.
import CSdBus
import CPasscodeShims
import PasscodeBus
import PasscodeCore

/// The sd-bus calls only the cache uses (loaded once, from the libsystemd already loaded).
struct SdBusCacheCalls: @unchecked Sendable {
    let addFilter: @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, SdBusLibrary.Handler?, UnsafeMutableRawPointer?) -> Int32
    let addMatch: @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, SdBusLibrary.Handler?,
                                  UnsafeMutableRawPointer?) -> Int32
    let isSignal: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let path: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    let skip: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let pathEncode: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32

    private static let lock = Mutex()
    nonisolated(unsafe) private static var loaded: SdBusCacheCalls??

    /// nil when libsystemd lacks one of them: the queries then stay bus calls.
    static func shared() -> SdBusCacheCalls? {
        lock.withLock {
            if let loaded { return loaded }
            let calls = SdBusCacheCalls()
            loaded = .some(calls)
            return calls
        }
    }

    private init?() {
        guard let h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD),
              let f = dlsym(h, "sd_bus_add_filter"), let m = dlsym(h, "sd_bus_add_match"),
              let s = dlsym(h, "sd_bus_message_is_signal"), let p = dlsym(h, "sd_bus_message_get_path"),
              let k = dlsym(h, "sd_bus_message_skip"), let e = dlsym(h, "sd_bus_path_encode") else { return nil }
        addFilter = unsafeBitCast(f, to: type(of: addFilter))
        addMatch = unsafeBitCast(m, to: type(of: addMatch))
        isSignal = unsafeBitCast(s, to: type(of: isSignal))
        path = unsafeBitCast(p, to: type(of: path))
        skip = unsafeBitCast(k, to: type(of: skip))
        pathEncode = unsafeBitCast(e, to: type(of: pathEncode))
    }
}

/// What passcoded last pushed of this handle's store, and on which connection, from which
/// service. Every field is guarded by the handle's `lock` (the filter runs inside sd_bus_process,
/// which the handle calls under it).
final class PushedCache: @unchecked Sendable {
    struct Snapshot {
        var generation: UInt64
        var clockFree: Bool
        var state: ServiceClient.State
        var screen: LockScreen
    }


    var calls: SdBusCacheCalls?
    /// The connection the filter is on, and the process that put it there.
    var filtered: OpaquePointer?
    var pid: pid_t = 0
    /// The service whose NameOwnerChanged is matched on `filtered`.
    var matched: String?
    /// The service the watch was made with (nil: not watching); its store's object path.
    var service: String?
    var path: String?
    var snapshot: Snapshot?
    /// The service whose Watch failed (an older passcoded): not asked again.
    var refusedBy: String?

    func reset() {
        service = nil
        path = nil
        snapshot = nil
    }

    /// A message on the connection (the filter, and the match of the service's NameOwnerChanged).
    func receive(_ m: OpaquePointer, _ bus: SdBusLibrary) {
        guard let calls, service != nil else { return }
        // The service left the bus (a restart, a crash): the copy is no one's word any more.
        if calls.isSignal(m, "org.freedesktop.DBus", "NameOwnerChanged") > 0 {
            guard let s = bus.sender(m), String(cString: s) == "org.freedesktop.DBus" else { return }
            var name: UnsafePointer<CChar>?
            guard bus.readBasic(m, CChar(UInt8(ascii: "s")), &name) > 0, let name, String(cString: name) == service else { return }
            reset()
            return
        }
        guard calls.isSignal(m, "org.freedesktop.DBus.Properties", "PropertiesChanged") > 0,
              let s = bus.sender(m), String(cString: s) == service,
              let p = calls.path(m), String(cString: p) == path else { return }
        // Read as the XML types them (StoreProperties, ServiceClient+Passcode1.generated.swift).
        guard let values = PushedCache.readStoreProperties(m, bus, calls), let generation = values.generation else {
            snapshot = nil  // not understood: ask the bus
            return
        }
        if let old = snapshot, old.generation >= generation { return }  // an older push, late
        guard let isSet = values.isSet, let enabled = values.lockEnabled, let failures = values.failedAttempts,
              let lockout = values.lockoutRemaining, let reset = values.resetRequired, let locked = values.locked,
              let reason = values.reason, let refusal = values.biometricRefusal, let lead = values.biometricLead,
              let kind = values.biometricKind, let clockFree = values.settled else {
            snapshot = nil
            return
        }
        snapshot = PushedCache.snapshot(generation: generation, clockFree: clockFree, isSet: isSet, enabled: enabled,
                                        failures: failures, lockout: lockout, reset: reset, locked: locked,
                                        reason: reason, refusal: refusal, lead: lead, kind: kind)
    }

    /// A snapshot from its fields; nil when a value is not one this library knows (ask the bus).
    static func snapshot(generation: UInt64, clockFree: Bool, isSet: Bool, enabled: Bool, failures: UInt32, lockout: Int64, reset: Bool,
                         locked: Bool, reason: Int32, refusal: Int32, lead: Bool, kind: Int32) -> Snapshot? {
        guard let why = LockReason(checked: reason), let refused = BiometricRefusal(checked: refusal),
              let biometric = BiometricKind(checked: kind) else { return nil }
        let state = ServiceClient.State(isSet: isSet, lockEnabled: enabled, failures: failures, lockout: lockout, resetRequired: reset)
        let screen = LockScreen(status: LockStatus(locked: locked, reason: why), lockoutSeconds: lockout, failedAttempts: Int64(failures),
                                resetRequired: reset, refusal: refused, lead: lead, kind: biometric, passcodeSet: isSet, lockEnabled: enabled)
        return Snapshot(generation: generation, clockFree: clockFree, state: state, screen: screen)
    }

    static let handler: SdBusLibrary.Handler = { m, userdata, _ in
        guard let m, let userdata else { return 0 }
        let client = Unmanaged<ServiceClient>.fromOpaque(userdata).takeUnretainedValue()
        client.pushed.receive(m, client.bus)
        return 0  // the message goes on to its other handlers
    }
}

extension ServiceClient {
    /// The pushed copy, when it answers a query now exactly as passcoded would; nil: ask the bus.
    /// Starts the watch at the first query after the service was checked.
    func pushedSnapshot() -> PushedCache.Snapshot? {
        if HostHookThread.active { return nil }  // the bus call says why it cannot be made
        for _ in 0..<2 {
            switch lock.withLock({ currentCopy() }) {
            case .answer(let s): return s
            case .bus: return nil
            case .watch: if !startWatching() { return nil }
            }
        }
        return nil
    }

    private enum Copy { case answer(PushedCache.Snapshot?), bus, watch }

    /// The copy after draining the connection. Under `lock`.
    private func currentCopy() -> Copy {
        guard let c = connection, pushed.pid == getpid(), pushed.filtered == c, let service = serviceName else {
            return serviceName == nil ? .bus : .watch
        }
        if pushed.refusedBy == service { return .bus }
        guard pushed.service == service, pushed.matched == service else { return .watch }
        // Every message waiting is handled: a PropertiesChanged updates the copy, the service's
        // NameOwnerChanged clears it.
        while true {
            let r = bus.process(c, nil)
            if r < 0 {
                pushed.reset()
                return .bus
            }
            if r == 0 { break }
        }
        guard pushed.service == service, let s = pushed.snapshot else { return pushed.service == nil ? .watch : .bus }
        return .answer(s.clockFree ? s : nil)
    }

    /// Puts the filter on the connection, matches the checked service's NameOwnerChanged, then
    /// calls Watch: every push after the service registered the watch reaches the filter.
    /// false when the watch could not be made (the queries stay bus calls).
    private func startWatching() -> Bool {
        let ready = lock.withLock { () -> Bool in
            guard let calls = pushed.calls ?? SdBusCacheCalls.shared(), let c = connection, let service = serviceName else { return false }
            pushed.calls = calls
            pushed.reset()
            var encoded: UnsafeMutablePointer<CChar>?
            guard calls.pathEncode(BusNames.storePrefix, appID, &encoded) >= 0, let encoded else { return false }
            let path = String(cString: encoded)
            free(encoded)
            let me = Unmanaged.passUnretained(self).toOpaque()
            if pushed.filtered != c || pushed.pid != getpid() {
                // Floating (no slot kept): it goes with the connection.
                guard calls.addFilter(c, nil, PushedCache.handler, me) >= 0 else { return false }
                pushed.filtered = c
                pushed.pid = getpid()
                pushed.matched = nil
            }
            if pushed.matched != service {
                // Synchronous: the bus has the match before Watch is sent.
                let rule = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(service)'"
                guard calls.addMatch(c, nil, rule, PushedCache.handler, me) >= 0 else { return false }
                pushed.matched = service
            }
            // From here pushes of this store from this service are taken (a change made while
            // Watch is answered may come before its reply, and be newer).
            pushed.service = service
            pushed.path = path
            return true
        }
        guard ready else { return false }
        var answer: (String, PushedCache.Snapshot?)?
        do {
            let w = try callWatch()
            answer = (w.path, PushedCache.snapshot(generation: w.generation, clockFree: w.settled, isSet: w.isSet,
                                                   enabled: w.lockEnabled, failures: w.failedAttempts, lockout: w.lockoutRemaining,
                                                   reset: w.resetRequired, locked: w.locked, reason: w.reason, refusal: w.refusal,
                                                   lead: w.lead, kind: w.kind))
        } catch {
            lock.withLock {
                pushed.reset()
                pushed.refusedBy = serviceName
            }
            return false
        }
        return lock.withLock { () -> Bool in
            // Made on the connection and with the service the filter and the match are for;
            // else (a fork, a restart meanwhile) the next query starts again.
            guard let (path, snapshot) = answer, let service = serviceName, connection == pushed.filtered,
                  pushed.pid == getpid(), pushed.matched == service, pushed.service == service, pushed.path == path else {
                pushed.reset()
                return false
            }
            // A push that came while Watch was answered may be newer than its answer.
            if let newer = pushed.snapshot, let s = snapshot, newer.generation > s.generation { return true }
            pushed.snapshot = snapshot
            return true
        }
    }
}
