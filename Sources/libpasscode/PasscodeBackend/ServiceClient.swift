// Service mode's back end: the calls of a store handle carried to passcoded over the system bus
// (org.libpasscode.Passcode1), where the same core answers them under the service's own uid.
// libsystemd is loaded with dlopen at the first open in service mode, as tpm2-tss is for the
// TPM, so libpasscode.so's NEEDED list stays as it is and hosts without it lose nothing.
import CSdBus
import CSandboxBus
import CPasscodeShims
import PasscodeBus
import PasscodeCore

/// libsystemd's sd-bus calls, loaded once for the life of the process.
struct SdBusLibrary: @unchecked Sendable {
    typealias Bus = OpaquePointer
    typealias Message = OpaquePointer
    let openSystem: @convention(c) (UnsafeMutablePointer<Bus?>?) -> Int32
    // Inside a sandbox the bus is opened on a socket the client connected itself (`openBus`):
    // sd_bus_new, sd_bus_set_fd, sd_bus_set_bus_client, sd_bus_negotiate_fds, sd_bus_start.
    let newBus: @convention(c) (UnsafeMutablePointer<Bus?>?) -> Int32
    let setFd: @convention(c) (Bus?, Int32, Int32) -> Int32
    let setBusClient: @convention(c) (Bus?, Int32) -> Int32
    let negotiateFds: @convention(c) (Bus?, Int32) -> Int32
    let start: @convention(c) (Bus?) -> Int32
    /// sd_bus_close and sd_bus_unref: never sd_bus_flush, which waits for the bus without a
    /// bound (a bus that never answered would hold `passcode_close`).
    let closeBus: @convention(c) (Bus?) -> Void
    let unref: @convention(c) (Bus?) -> Bus?
    /// The connection's socket, whose peer (the bus daemon) is checked (`checkBusDaemon`).
    let getFd: @convention(c) (Bus?) -> Int32
    let newMethodCall: @convention(c) (Bus?, UnsafeMutablePointer<Message?>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                       UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let appendBasic: @convention(c) (Message?, CChar, UnsafeRawPointer?) -> Int32
    let readBasic: @convention(c) (Message?, CChar, UnsafeMutableRawPointer?) -> Int32
    /// sd_bus_message_read_array: a pointer into the message's own memory (the data key's reply).
    let readArray: @convention(c) (Message?, CChar, UnsafeMutablePointer<UnsafeRawPointer?>?, UnsafeMutablePointer<Int>?) -> Int32
    let call: @convention(c) (Bus?, Message?, UInt64, UnsafeMutablePointer<sd_bus_error>?, UnsafeMutablePointer<Message?>?) -> Int32
    let messageUnref: @convention(c) (Message?) -> Message?
    let errorFree: @convention(c) (UnsafeMutablePointer<sd_bus_error>?) -> Void
    /// For `ay` arguments and array replies (systemd 209 and later).
    let appendArray: @convention(c) (Message?, CChar, UnsafeRawPointer?, Int) -> Int32
    let enterContainer: @convention(c) (Message?, CChar, UnsafePointer<CChar>?) -> Int32
    let exitContainer: @convention(c) (Message?) -> Int32
    let atEnd: @convention(c) (Message?, Int32) -> Int32
    /// sd_bus_message_sensitive (systemd 245 and later): the message's memory is wiped when
    /// freed. nil with an older libsystemd (the passcode's copy in the message is then not wiped).
    let sensitive: (@convention(c) (Message?) -> Int32)?
    // For the calls the service makes back to the host while a call waits (ServiceClient+Hooks.swift):
    // a call is sent with sd_bus_call_async and the connection processed until its reply came.
    typealias Handler = @convention(c) (Message?, UnsafeMutableRawPointer?, UnsafeMutablePointer<sd_bus_error>?) -> Int32
    let callAsync: @convention(c) (Bus?, UnsafeMutablePointer<OpaquePointer?>?, Message?, Handler?, UnsafeMutableRawPointer?, UInt64) -> Int32
    let process: @convention(c) (Bus?, UnsafeMutablePointer<Message?>?) -> Int32
    let wait: @convention(c) (Bus?, UInt64) -> Int32
    let addObject: @convention(c) (Bus?, UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, Handler?, UnsafeMutableRawPointer?) -> Int32
    let slotUnref: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let messageRef: @convention(c) (Message?) -> Message?
    let sender: @convention(c) (Message?) -> UnsafePointer<CChar>?
    let member: @convention(c) (Message?) -> UnsafePointer<CChar>?
    let interface: @convention(c) (Message?) -> UnsafePointer<CChar>?
    let isMethodError: @convention(c) (Message?, UnsafePointer<CChar>?) -> Int32
    let messageError: @convention(c) (Message?) -> UnsafePointer<sd_bus_error>?
    let expectReply: @convention(c) (Message?) -> Int32
    let newMethodReturn: @convention(c) (Message?, UnsafeMutablePointer<Message?>?) -> Int32
    let replyError: @convention(c) (Message?, UnsafePointer<sd_bus_error>?) -> Int32
    let send: @convention(c) (Bus?, Message?, UnsafeMutablePointer<UInt64>?) -> Int32

    private static let lock = Mutex()
    nonisolated(unsafe) private static var loaded: SdBusLibrary?

    /// Opens the system bus: outside a sandbox as sd_bus_open_system does; inside one
    /// (`ServiceClient.inSandbox`) always the sandbox's socket, whatever the environment says.
    ///
    /// Inside a sandbox that socket is flatpak's xdg-dbus-proxy, and sd-bus, which sends its whole
    /// authentication and BEGIN in one write, is not given the address: versions of the proxy
    /// before 0.1.6 end such a connection. The client connects itself and gives sd-bus one end of
    /// a socket pair; the handshake (Sources/libpasscode/CSandboxBus/sandbox_bus.c) sends sd-bus's
    /// lines to the proxy one at a time, each answer awaited, and then puts the proxy's socket in
    /// the pair's place, so sd-bus reads the answers and talks to the proxy directly: no thread or
    /// relay stays behind. No fds are negotiated (passcoded's connections carry none). The whole
    /// opening waits at most the calls' bound (`ServiceClient.boundMicroseconds`).
    func openBus(_ out: UnsafeMutablePointer<Bus?>) -> Int32 {
        guard ServiceClient.inSandbox else { return openSystem(out) }
        let bound = ServiceClient.boundMicroseconds
        var fds = sandbox_bus_fds(bus_end: -1, own_end: -1, proxy: -1)
        var r = sandbox_bus_connect(ServiceClient.sandboxBusPath, bound, &fds)
        guard r >= 0 else { return r }
        var b: Bus?
        r = newBus(&b)
        guard r >= 0, let b else {
            sandbox_bus_abandon(&fds, 1)
            return r < 0 ? r : -ENOMEM
        }
        r = setFd(b, fds.bus_end, fds.bus_end)
        guard r >= 0 else {  // sd-bus did not take the fd
            sandbox_bus_abandon(&fds, 1)
            _ = unref(b)
            return r
        }
        r = setBusClient(b, 1)
        if r >= 0 { r = negotiateFds(b, 0) }
        if r >= 0 { r = start(b) }  // sd-bus writes its authentication into the pair
        if r >= 0 {
            r = sandbox_bus_handshake(&fds, bound)
        } else {
            sandbox_bus_abandon(&fds, 0)
        }
        guard r >= 0 else {
            closeBus(b)  // closes bus_end, sd-bus's now
            _ = unref(b)
            return r
        }
        out.pointee = b
        return 0
    }

    static func shared() throws(PasscodeError) -> SdBusLibrary {
        try lock.withLock { () throws(PasscodeError) in
            if let loaded { return loaded }
            let library = try SdBusLibrary()
            loaded = library
            return library
        }
    }

    private init() throws(PasscodeError) {
        guard let h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "libsystemd.so.0"
            throw PasscodeError.serviceUnavailable("service mode needs libsystemd (\(why)); install libsystemd0")
        }
        func symbol<T>(_ name: String, _: T.Type = T.self) throws(PasscodeError) -> T {
            guard let p = dlsym(h, name) else {
                throw PasscodeError.serviceUnavailable("libsystemd lacks \(name); service mode needs systemd 221 or later")
            }
            return unsafeBitCast(p, to: T.self)
        }
        openSystem = try symbol("sd_bus_open_system")
        newBus = try symbol("sd_bus_new")
        setFd = try symbol("sd_bus_set_fd")
        setBusClient = try symbol("sd_bus_set_bus_client")
        negotiateFds = try symbol("sd_bus_negotiate_fds")
        start = try symbol("sd_bus_start")
        closeBus = try symbol("sd_bus_close")
        unref = try symbol("sd_bus_unref")
        getFd = try symbol("sd_bus_get_fd")
        newMethodCall = try symbol("sd_bus_message_new_method_call")
        appendBasic = try symbol("sd_bus_message_append_basic")
        readBasic = try symbol("sd_bus_message_read_basic")
        readArray = try symbol("sd_bus_message_read_array")
        call = try symbol("sd_bus_call")
        messageUnref = try symbol("sd_bus_message_unref")
        errorFree = try symbol("sd_bus_error_free")
        appendArray = try symbol("sd_bus_message_append_array")
        enterContainer = try symbol("sd_bus_message_enter_container")
        exitContainer = try symbol("sd_bus_message_exit_container")
        callAsync = try symbol("sd_bus_call_async")
        process = try symbol("sd_bus_process")
        wait = try symbol("sd_bus_wait")
        addObject = try symbol("sd_bus_add_object")
        slotUnref = try symbol("sd_bus_slot_unref")
        messageRef = try symbol("sd_bus_message_ref")
        sender = try symbol("sd_bus_message_get_sender")
        member = try symbol("sd_bus_message_get_member")
        interface = try symbol("sd_bus_message_get_interface")
        isMethodError = try symbol("sd_bus_message_is_method_error")
        messageError = try symbol("sd_bus_message_get_error")
        expectReply = try symbol("sd_bus_message_get_expect_reply")
        newMethodReturn = try symbol("sd_bus_message_new_method_return")
        replyError = try symbol("sd_bus_reply_method_error")
        send = try symbol("sd_bus_send")
        atEnd = try symbol("sd_bus_message_at_end")
        sensitive = dlsym(h, "sd_bus_message_sensitive").map { unsafeBitCast($0, to: (@convention(c) (Message?) -> Int32).self) }
    }
}

extension PasscodeError {
    /// The status of a failure the service answered (`PasscodeError.service`), nil for others.
    package var serviceStatus: Int32? {
        if case .service(let status, _, _) = self { return status }
        return nil
    }
}

/// One argument of a call.
enum BusArgument {
    case text(String)
    case secret(SecretBytes)
    /// A secret as `ay`: its exact bytes (a NUL does not cut it), in a sensitive message.
    case secretBytes(SecretBytes)
    case int32(Int32)
    case int64(Int64)
    case bool(Bool)
    case uint32(UInt32)
    /// An array of uint32 ('au').
    case uint32s([UInt32])
}

/// A store handle in service mode: one bus connection (the system bus, or the address in
/// DBUS_SYSTEM_BUS_ADDRESS, as sd-bus reads it), used by one call at a time.
package final class ServiceClient: StoreBackend, @unchecked Sendable {
    /// How long a call waits for its answer, at most, counted from when it is made (the
    /// service's check, the host's callbacks registered again and the call itself, together):
    /// a verify can queue behind others of the same uid; a silent service holds no call longer.
    static let timeoutMicroseconds: UInt64 = 120_000_000
    /// The bound of every call: `timeoutMicroseconds`, or a shorter one that
    /// PASSCODE_SERVICE_TIMEOUT_MS gives (1 to 119999 ms; the tests of a silent service). It can
    /// only shorten the wait, never lengthen it; a setuid or setgid process ignores it.
    static let boundMicroseconds: UInt64 = {
        guard getuid() == geteuid(), getgid() == getegid(),
              let text = getenv("PASSCODE_SERVICE_TIMEOUT_MS").map({ String(cString: $0) }),
              let ms = UInt64(text), ms >= 1, ms < timeoutMicroseconds / 1000 else { return timeoutMicroseconds }
        return ms * 1000
    }()
    /// The uid the owner of `name` has, as the bus daemon recorded it when that connection was
    /// made (its SO_PEERCRED): root. passcoded connects and claims the name as root and only
    /// then drops to its own user (the bus keeps the uid of the connect), and the shipped bus
    /// policy lets root alone own the name. Neither an argument nor the environment changes it:
    /// tests run passcoded as root, as it must be started anyway.
    static let serviceUID: uid_t = 0
    /// The longest string passcoded reads.
    static let maxSecretBytes = BusLimits.maxArgumentBytes

    let appID: String
    let bus: SdBusLibrary
    private(set) var connection: OpaquePointer?
    /// The process that opened `connection`: a child made by fork() opens its own (see `connected`).
    private var connectionPid: pid_t = 0
    let lock = Mutex()
    /// The host's callbacks registered on this handle (ServiceClient+Hooks.swift), under `lock`.
    var hostHooks = Hooks()
    /// The unique bus name of the passcoded checked on this connection (`verifiedService`):
    /// every call goes to it, and its calls alone to the hook object are answered. Under `lock`.
    var serviceName: String?
    /// Notifications (logout, notice, account deleted) received while a call waited, run once
    /// it has its reply (`runNotices`). Under `lock`.
    var notices: [() -> Void] = []
    /// The object the service's calls to the host's hooks reach (sd_bus_add_object).
    private var hookSlot: OpaquePointer?
    /// The passcode this handle last set or checked with success, and when (boot clock,
    /// seconds), for SetRecoveryKey only: passcoded needs it to release the data key it wraps.
    /// A setting or the lockout table travels without it (passcoded keeps each connection's proof).
    private var proof: (code: SecretBytes, at: Int64)?
    /// The data key as this handle holds it, in this process (ServiceClient+Key.swift).
    let keyState = ClientKeyState()
    /// What passcoded pushed of the store, for the cached queries (ServiceClient+Cache.swift).
    let pushed = PushedCache()
    /// Ends a fingerprint read waiting on this handle, from any thread (ServiceClient+User.swift).
    let canceller = CallCanceller()

    /// The system bus this process connects to: DBUS_SYSTEM_BUS_ADDRESS (as sd-bus reads it, with
    /// secure_getenv: a setuid or setgid process ignores it, so its text never reaches a message
    /// there), or the default socket.
    static var busAddress: String {
        if inSandbox { return "unix:path=\(sandboxBusPath) (the sandbox's bus; DBUS_SYSTEM_BUS_ADDRESS is ignored in a sandbox)" }
        if getuid() == geteuid(), getgid() == getegid(),
           let a = getenv("DBUS_SYSTEM_BUS_ADDRESS"), a.pointee != 0 { return String(cString: a) }
        return "unix:path=/run/dbus/system_bus_socket (the default; DBUS_SYSTEM_BUS_ADDRESS is not set)"
    }

    /// Whether this process runs in a Flatpak or bubblewrap sandbox as flatpak makes one: its
    /// root holds `/.flatpak-info`. Read once.
    package static let inSandbox: Bool = {
        var st = stat()
        return lstat("/.flatpak-info", &st) == 0
    }()

    /// What a failed call adds inside a sandbox: the bus there is flatpak's xdg-dbus-proxy, which
    /// lets the app reach only the names its finish-args allow (any version of the proxy carries
    /// the client's connection: `SdBusLibrary.openBus`).
    static var proxyHint: String {
        inSandbox ? " (inside a sandbox the bus is flatpak's xdg-dbus-proxy, which passes only the names the app's finish-args "
            + "allow: --system-talk-name=\(BusNames.name))" : ""
    }

    /// The system bus's socket inside a sandbox: flatpak binds xdg-dbus-proxy's filtered socket
    /// there (made by the proxy, as the user). Fixed: no environment variable moves it.
    static let sandboxBusPath = "/run/dbus/system_bus_socket"

    /// SERVICE_UNAVAILABLE for a system bus that cannot be reached (`r`: sd-bus's negative errno):
    /// which bus was tried, and what to check.
    /// Inside a sandbox the socket is flatpak's xdg-dbus-proxy (there only when the app may talk
    /// to a system bus name); a timeout is a proxy that did not answer the authentication.
    static func noBus(_ r: Int32) -> PasscodeError {
        let why = String(cString: strerror(-r))
        if inSandbox {
            return .serviceUnavailable("cannot connect to the system bus at \(busAddress): \(why). Inside a sandbox that socket is "
                                       + "flatpak's xdg-dbus-proxy: the app's finish-args must include --system-talk-name=\(BusNames.name), "
                                       + "and the host must run passcoded (passcoded(8))")
        }
        return .serviceUnavailable("cannot connect to the system bus at \(busAddress): \(why). Check that "
                                   + "the system bus runs (systemctl status dbus, or dbus-daemon --system) and that "
                                   + "DBUS_SYSTEM_BUS_ADDRESS, when set, names it; passcoded(8) says how to install and start the "
                                   + "service, and `sudo make try-service` runs one from a checkout")
    }

    /// Connects and asks for the store's state once, so that an unreachable service or an app
    /// id the service refuses fails here, as a bad path fails an embedded open. The object is
    /// made whole before anything that can fail after it exists: a class whose throwing init
    /// throws after a partial initialization leaks its memory in Embedded Swift.
    package static func connect(appID: String) throws(PasscodeError) -> ServiceClient {
        let bus = try SdBusLibrary.shared()
        var c: OpaquePointer?
        let r = bus.openBus(&c)
        guard r >= 0, let c else {
            throw ServiceClient.noBus(r)
        }
        let client = ServiceClient(appID: appID, bus: bus, connection: c)
        let r2 = bus.addObject(c, &client.hookSlot, ServiceClient.hookPath, ServiceClient.hookHandler,
                               Unmanaged.passUnretained(client).toOpaque())
        guard r2 >= 0 else {
            client.close()
            throw PasscodeError.serviceUnavailable("cannot publish the hook object: \(String(cString: strerror(-r2)))")
        }
        do { _ = try client.state() } catch {
            client.close()
            throw error
        }
        return client
    }

    private init(appID: String, bus: SdBusLibrary, connection: OpaquePointer) {
        self.appID = appID
        self.bus = bus
        self.connection = connection
        connectionPid = getpid()
    }

    deinit { close() }

    // bus: local (closes this handle's connection; passcoded forgets it when the connection goes)
    package func close() {
        lock.withLock {
            // A child made by fork() leaves its parent's connection and hook object alone (see `connected`).
            if connectionPid == getpid() {
                if let slot = hookSlot { _ = bus.slotUnref(slot) }
                if let c = connection {
                    bus.closeBus(c)
                    _ = bus.unref(c)
                }
            }
            hookSlot = nil
            connection = nil
            proof = nil
            hostHooks = Hooks()
        }
        keyState.close()
    }

    // MARK: - StoreBackend

    package func isPasscodeSet() throws(PasscodeError) -> Bool { try state().isSet }
    package func isLockEnabled() throws(PasscodeError) -> Bool { try state().lockEnabled }
    package func failedAttempts() throws(PasscodeError) -> Int { Int(try state().failures) }
    package func lockoutRemainingSeconds() throws(PasscodeError) -> Int64 { try state().lockout }
    package func isResetRequired() throws(PasscodeError) -> Bool { try state().resetRequired }

    // The calls that release the data key on an embedded handle get it here too, for
    // `passcode_seal` (ServiceClient+Key.swift).
    package func setFirstPasscode(_ code: SecretBytes) throws(PasscodeError) {
        _ = try setPasscode(code)
    }

    package func checkPasscode(_ code: SecretBytes) throws(PasscodeError) {
        _ = try verifyReleasingKey(code, handingOut: false)
    }

    package func authorize(_ code: SecretBytes) throws(PasscodeError) {
        try checkPasscode(code)
    }

    package func changePasscode(current: SecretBytes, new: SecretBytes) throws(PasscodeError) {
        _ = try changePasscodeReturningKey(current: current, new: new)
    }

    /// Keeps the passcode this handle set or checked (a wiped buffer) for a recovery key set
    /// within the core's proof window (`PasscodeStore.proofWindowMs`).
    func keepProof(_ code: SecretBytes) {
        let kept = code.withBytes { SecretBytes(copying: $0) }
        lock.withLock { proof = (kept, ServiceClient.bootSeconds()) }
    }

    package func removePasscode(current: SecretBytes) throws(PasscodeError) {
        try callRemovePasscode(current: current)
        forgetProof()
    }

    /// The kept passcode while within the core's proof window, else nil (and forgotten).
    func recentProof() -> SecretBytes? {
        let now = ServiceClient.bootSeconds()
        return lock.withLock { () -> SecretBytes? in
            guard let p = proof, (now - p.at) * 1000 <= PasscodeStore.proofWindowMs else { proof = nil; return nil }
            return p.code
        }
    }

    /// The passcode went (removed, forgotten, the account deleted): nothing proves the user.
    func forgetProof() {
        lock.withLock { proof = nil }
        keyState.dropKey()  // as embedded: the key goes with the passcode
    }

    package func turnOff(current: SecretBytes) throws(PasscodeError) {
        _ = try disable(current: current)
    }

    package func get(_ setting: Setting) throws(PasscodeError) -> Int64 {
        try callGetSetting(name: setting.spec.key)
    }

    package func set(_ setting: Setting, to value: Int64) throws(PasscodeError) {
        try callSetSetting(name: setting.spec.key, value: value)
    }

    package func lockStatus() throws(PasscodeError) -> LockStatus { try lockScreen().status }

    package func lockScreen() throws(PasscodeError) -> LockScreen {
        if let pushed = pushedSnapshot() { return pushed.screen }
        let v = try callGetLockScreen()
        guard let why = LockReason(checked: v.reason), let refused = BiometricRefusal(checked: v.refusal),
              let biometric = BiometricKind(checked: v.kind) else {
            throw PasscodeError.serviceUnavailable("passcoded answered GetLockScreen with a value this library does not know")
        }
        return LockScreen(status: LockStatus(locked: v.locked, reason: why), lockoutSeconds: v.lockoutRemaining,
                          failedAttempts: Int64(v.failedAttempts), resetRequired: v.resetRequired, refusal: refused, lead: v.lead,
                          kind: biometric, passcodeSet: v.isSet, lockEnabled: v.lockEnabled)
    }

    package func copyLockScreen(to destination: UnsafeMutableRawPointer, from start: Int, count: Int,
                                make: (LockScreen, UnsafeMutableRawPointer) -> Void) throws(PasscodeError) {
        let screen = try lockScreen()
        var image = LockScreenImage()
        withUnsafeMutableBytes(of: &image) { make(screen, $0.baseAddress!) }
        withUnsafeBytes(of: &image) { destination.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
    }

    // MARK: - Calls

    struct State {
        var isSet = false, lockEnabled = false, failures: UInt32 = 0, lockout: Int64 = 0, resetRequired = false
    }

    private func state() throws(PasscodeError) -> State {
        if let pushed = pushedSnapshot() { return pushed.state }
        let s = try callGetState()
        return State(isSet: s.isSet, lockEnabled: s.lockEnabled, failures: s.failedAttempts, lockout: s.lockoutRemaining,
                     resetRequired: s.resetRequired)
    }

    /// Reads a reply's values in order.
    struct Reader {
        let bus: SdBusLibrary
        let message: OpaquePointer
        let member: String

        func read<T>(_ type: UInt8, _ value: T) throws(PasscodeError) -> T {
            var v = value
            let r = withUnsafeMutableBytes(of: &v) { bus.readBasic(message, CChar(type), $0.baseAddress) }
            guard r > 0 else { throw PasscodeError.serviceUnavailable("passcoded's answer to \(member) is not the one expected") }
            return v
        }
        func bool() throws(PasscodeError) -> Bool { try read(UInt8(ascii: "b"), Int32(0)) != 0 }
        func int32() throws(PasscodeError) -> Int32 { try read(UInt8(ascii: "i"), Int32(0)) }
        func uint32() throws(PasscodeError) -> UInt32 { try read(UInt8(ascii: "u"), UInt32(0)) }
        func int64() throws(PasscodeError) -> Int64 { try read(UInt8(ascii: "x"), Int64(0)) }
        func uint64() throws(PasscodeError) -> UInt64 { try read(UInt8(ascii: "t"), UInt64(0)) }
        func string() throws(PasscodeError) -> String {
            guard let p = try read(UInt8(ascii: "s"), UnsafePointer<CChar>?.none) else { throw unexpected() }
            return String(cString: p)
        }
        /// An array of structs (`a(<fields>)`): `each` reads one struct's fields, in order.
        func structs(_ fields: String, _ each: () throws(PasscodeError) -> Void) throws(PasscodeError) {
            guard bus.enterContainer(message, CChar(UInt8(ascii: "a")), "(\(fields))") > 0 else { throw unexpected() }
            while true {
                let r = bus.enterContainer(message, CChar(UInt8(ascii: "r")), fields)
                if r == 0 { break }
                guard r > 0 else { throw unexpected() }
                try each()
                guard bus.exitContainer(message) > 0 else { throw unexpected() }
            }
            guard bus.exitContainer(message) > 0 else { throw unexpected() }
        }
        func unexpected() -> PasscodeError {
            .serviceUnavailable("passcoded's answer to \(member) is not the one expected")
        }
        /// An array whose elements have the signature `element` ("(sx)", "s", ...): `each`
        /// reads one element's values (a struct's fields in order).
        func array(_ element: String, _ each: (Reader) throws(PasscodeError) -> Void) throws(PasscodeError) {
            let bad = PasscodeError.serviceUnavailable("passcoded's answer to \(member) is not the one expected")
            guard bus.enterContainer(message, CChar(UInt8(ascii: "a")), element) > 0 else { throw bad }
            let isStruct = element.hasPrefix("(")
            let fields = String(element.dropFirst().dropLast())
            while true {
                let end = bus.atEnd(message, 0)
                guard end >= 0 else { throw bad }
                if end > 0 { break }
                if isStruct { guard bus.enterContainer(message, CChar(UInt8(ascii: "r")), fields) > 0 else { throw bad } }
                try each(self)
                if isStruct { guard bus.exitContainer(message) >= 0 else { throw bad } }
            }
            guard bus.exitContainer(message) >= 0 else { throw bad }
        }
    }

    /// Calls `member(app_id, arguments...)` and hands its reply to `read` (the generated stubs,
    /// ServiceClient+Passcode1.generated.swift, call it). An error reply
    /// org.libpasscode.Error.<Name> becomes that status with the service's message.
    func call(_ member: String, _ arguments: [BusArgument], _ read: (Reader) throws(PasscodeError) -> Void) throws(PasscodeError) {
        // passcoded waits for the hook, and runs this uid's calls one at a time: a call made
        // from inside a hook would wait behind the call that asked it.
        if HostHookThread.active {
            throw PasscodeError.misuse("in service mode a hook or callback cannot call the library: the service is waiting for its answer")
        }
        defer { runNotices() }
        // One deadline for every wait of the call, kept even when nothing arrives.
        let deadline = ServiceClient.monotonicMicroseconds() + ServiceClient.boundMicroseconds
        do throws(PasscodeError) {
            if try !reached(member, arguments, by: deadline, read) {
                // The passcoded this handle talked to is gone (a restart): the call reached no
                // one. The name's owner now is checked, the host's callbacks registered with it,
                // then the call, which therefore never runs without the host's hooks.
                lock.withLock { serviceName = nil }
                // Gone again: the call fails as an unforeseen error does.
                if try !reached(member, arguments, by: deadline, read) { throw .internalError("unexpected error") }
            }
        } catch .service(let status, let message, _) where status == BusStatus.errLockedOut && member != "GetState" && !member.hasPrefix("User") {
            // The wait for passcode_errwait, as the embedded store gives it with the failure
            // (a call naming a uid: the user's wait, ServiceClient+User.swift).
            throw .service(status: status, message: message, waitSeconds: (try? state().lockout) ?? 0)
        } catch .service(let status, let message, _) where status == BusStatus.errRateLimited && member == "ResetRequest" {
            // The same for a reset-code request's own limit: the seconds until the next is allowed.
            throw .service(status: status, message: message, waitSeconds: (try? callResetRetryAfter()) ?? 0)
        }
    }

    /// The host's callbacks registered again if lost, then the call; false when the passcoded
    /// checked on this connection is gone (the bus daemon's answer): the call reached no one.
    private func reached(_ member: String, _ arguments: [BusArgument], by deadline: UInt64,
                         _ read: (Reader) throws(PasscodeError) -> Void) throws(PasscodeError) -> Bool {
        guard try registerHooksIfLost(before: member, by: deadline) else { return false }
        return try callLocked(member, arguments, by: deadline, read)
    }

    /// With callbacks registered but no passcoded known to hold them (`serviceName` cleared: it
    /// went away, or this is a child made by fork(), whose own connection `connected` opens
    /// here), registers them with the passcoded that owns the name now, before `member`.
    /// False when the passcoded checked on this connection is gone (`callLocked`).
    private func registerHooksIfLost(before member: String, by deadline: UInt64) throws(PasscodeError) -> Bool {
        guard member != "SetHooks" else { return true }  // it says which callbacks itself
        let flags = try lock.withLock { () throws(PasscodeError) -> UInt32 in
            if connection != nil && connectionPid != getpid() { _ = try connected() }
            return serviceName == nil ? HookFlags.of(hostHooks) : 0
        }
        if flags != 0 { return try callLocked("SetHooks", [.uint32(flags)], by: deadline) { _ in } }
        return true
    }

    private func callLocked(_ member: String, _ arguments: [BusArgument], by deadline: UInt64,
                            _ read: (Reader) throws(PasscodeError) -> Void) throws(PasscodeError) -> Bool {
        for case .secret(let code) in arguments where code.count > ServiceClient.maxSecretBytes {
            // passcoded refuses longer strings (InvalidArgs); embedded, such a passcode is FORMAT.
            throw PasscodeError.format("the passcode is too long")
        }
        return try lock.withLock { () throws(PasscodeError) -> Bool in
            let c = try connected()
            // The call goes to the passcoded checked on this connection (its unique name, which
            // no one else can take), never to whoever owns the well-known name by then: a
            // successor is checked first (and `call` gives it the host's callbacks first).
            let service = try verifiedService(c, before: member, by: deadline)
            var m: OpaquePointer?
            var r = bus.newMethodCall(c, &m, service, BusNames.path, BusNames.interface, member)
            guard r >= 0, let m else { throw unavailable(member, r) }
            defer { _ = bus.messageUnref(m) }
            if arguments.contains(where: {
                switch $0 { case .secret, .secretBytes: return true; default: return false }
            }) { _ = bus.sensitive?(m) }
            r = appendText(m, appID)
            for argument in arguments where r >= 0 {
                switch argument {
                case .text(let t): r = appendText(m, t)
                case .int32(var v): r = bus.appendBasic(m, CChar(UInt8(ascii: "i")), &v)
                case .int64(var v): r = bus.appendBasic(m, CChar(UInt8(ascii: "x")), &v)
                case .bool(let b):
                    var v: Int32 = b ? 1 : 0
                    r = bus.appendBasic(m, CChar(UInt8(ascii: "b")), &v)
                case .uint32(var v): r = bus.appendBasic(m, CChar(UInt8(ascii: "u")), &v)
                case .uint32s(let values):
                    r = values.withUnsafeBytes { bus.appendArray(m, CChar(UInt8(ascii: "u")), $0.baseAddress, $0.count) }
                case .secret(let code): r = appendSecret(m, code)
                case .secretBytes(let bytes): r = bytes.withBytes { bus.appendArray(m, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) }
                }
            }
            guard r >= 0 else { throw unavailable(member, r) }
            let reply = try send(c, m, member, by: deadline)
            _ = bus.sensitive?(reply)  // wiped when freed: a reply may carry the data key
            defer { _ = bus.messageUnref(reply) }
            if bus.isMethodError(reply, nil) > 0 {
                let e = bus.messageError(reply)?.pointee ?? sd_bus_error(name: nil, message: nil, _need_free: 0)
                // The bus daemon's word that the checked passcoded is gone (never the service's own).
                if let n = e.name.map({ String(cString: $0) }),
                   n == "org.freedesktop.DBus.Error.ServiceUnknown" || n == "org.freedesktop.DBus.Error.NameHasNoOwner",
                   let s = bus.sender(reply), String(cString: s) == "org.freedesktop.DBus" {
                    return false  // the checked passcoded is gone: the call reached no one
                }
                throw failure(member, -EIO, e)
            }
            try read(Reader(bus: bus, message: reply, member: member))
            return true
        }
    }

    /// Sends `m` and processes the connection until its reply came, or the call's `deadline`
    /// passed (SERVICE_UNAVAILABLE). Meanwhile the service may call the host's hooks on it
    /// (hookHandler), which sd_bus_call would not run. Under `lock`; the reply is the caller's
    /// to unreference.
    private func send(_ c: OpaquePointer, _ m: OpaquePointer, _ member: String, by deadline: UInt64) throws(PasscodeError) -> OpaquePointer {
        guard ServiceClient.monotonicMicroseconds() < deadline else { throw timedOut(member) }
        let pending = PendingReply(bus)
        var slot: OpaquePointer?
        // No timeout of sd-bus's own (UINT64_MAX): the loop below keeps the deadline. sd-bus's
        // timeout did not end sd_bus_wait(UINT64_MAX) while nothing arrived (a silent service
        // held passcode_open for minutes).
        var r = withExtendedLifetime(pending) {
            bus.callAsync(c, &slot, m, ServiceClient.replyHandler, Unmanaged.passUnretained(pending).toOpaque(), UInt64.max)
        }
        guard r >= 0 else { throw unavailable(member, r) }
        // A fingerprint read (`CallCanceller.run`): its cancel, from another thread, shuts this
        // socket down, which ends the wait below and, as the connection leaves the bus, the read.
        canceller.watch(bus.getFd(c))
        defer { canceller.unwatch() }
        return try withExtendedLifetime(pending) { () throws(PasscodeError) in
            defer { _ = bus.slotUnref(slot) }  // before `pending` goes: no callback after it
            while pending.reply == nil {
                r = bus.process(c, nil)
                if r < 0 { throw unavailable(member, r) }
                if pending.reply != nil { break }
                // Checked after every message too: a stream of them does not hold the call either.
                let now = ServiceClient.monotonicMicroseconds()
                guard now < deadline else { throw timedOut(member) }
                if r > 0 { continue }
                r = bus.wait(c, deadline - now)
                if r < 0 && r != -EINTR { throw unavailable(member, r) }
            }
            defer { pending.reply = nil }  // the caller's now, unreferenced there
            return pending.reply!
        }
    }

    /// The unique name of the passcoded this connection talks to: the owner of `name`, checked
    /// once per connection and again when the owner changed (`serviceName` cleared). The bus
    /// must be run by root (`checkBusDaemon`: a bus of the user's own would say whatever it
    /// likes) and the owner must be root as that bus recorded it (`serviceUID`), so that no
    /// process of the user's (or of another user) that got the name receives a passcode or
    /// hands out a key. Before the check only a Ping and the bus's own query go out. Under `lock`.
    private func verifiedService(_ c: OpaquePointer, before member: String, by deadline: UInt64) throws(PasscodeError) -> String {
        if let name = serviceName { return name }
        // Sent to the well-known name (which D-Bus activation starts if needed); the reply's
        // sender, set by the bus, is the owner's unique name.
        let owner = try checkCall(c, BusNames.name, BusNames.path, "org.freedesktop.DBus.Peer", "Ping", nil,
                                  for: member, by: deadline) { (reply) throws(PasscodeError) -> String in
            guard let s = bus.sender(reply), s.pointee == CChar(UInt8(ascii: ":")) else {
                throw PasscodeError.serviceUnavailable("the bus did not say which connection owns \(BusNames.name)")
            }
            return String(cString: s)
        }
        try checkBusDaemon(c)
        let uid = try checkCall(c, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixUser",
                                owner, for: member, by: deadline) { (p0) throws(PasscodeError) in try Reader(bus: bus, message: p0, member: member).uint32() }
        guard uid == ServiceClient.serviceUID else {
            throw PasscodeError.serviceUnavailable(
                "the owner of \(BusNames.name) on this bus runs as uid \(uid), not as root as passcoded does: service mode "
                    + "sends it nothing (check which bus DBUS_SYSTEM_BUS_ADDRESS names, and that its policy lets only root own the name)")
        }
        serviceName = owner
        return owner
    }

    /// One call of the service's check to `destination`: its reply handed to `read`; an error
    /// reply, a silent peer (the call's deadline) or a bad answer is SERVICE_UNAVAILABLE.
    private func checkCall<T>(_ c: OpaquePointer, _ destination: String, _ path: String, _ interface: String, _ method: String,
                              _ argument: String?, for member: String, by deadline: UInt64,
                              _ read: (OpaquePointer) throws(PasscodeError) -> T) throws(PasscodeError) -> T {
        var m: OpaquePointer?
        var r = bus.newMethodCall(c, &m, destination, path, interface, method)
        guard r >= 0, let m else { throw unavailable(member, r) }
        defer { _ = bus.messageUnref(m) }
        if let argument {
            r = appendText(m, argument)
            guard r >= 0 else { throw unavailable(member, r) }
        }
        let reply = try send(c, m, member, by: deadline)
        defer { _ = bus.messageUnref(reply) }
        if bus.isMethodError(reply, nil) > 0 {
            let e = bus.messageError(reply)?.pointee
            let name = e?.name.map { String(cString: $0) } ?? "", text = e?.message.map { String(cString: $0) } ?? ""
            if destination == BusNames.name,
               name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
                throw PasscodeError.serviceUnavailable(
                    "passcoded is not on the system bus at \(ServiceClient.busAddress): \(BusNames.name) has no owner and the bus "
                        + "did not start it (\(text)). Check with `busctl status \(BusNames.name)`; install the service (the passcoded "
                        + "package, or make install-service) and see passcoded(8); `sudo make try-service` runs one from a checkout"
                        + ServiceClient.proxyHint)
            }
            throw PasscodeError.serviceUnavailable("passcoded did not answer \(member): \(name): \(text)\(ServiceClient.proxyHint)")
        }
        return try read(reply)
    }

    /// The bus daemon is the peer of the connection's socket; the kernel reports who made its
    /// listening socket (SO_PEERCRED), which no one can choose: root for every system bus
    /// (dbus-daemon binds it before dropping to its user; systemd makes dbus.socket). A bus a
    /// user runs, or one over TCP, is refused, whatever it says about the name's owner.
    private func checkBusDaemon(_ c: OpaquePointer) throws(PasscodeError) {
        let fd = bus.getFd(c)
        var peer = PeerCredentials()
        var size = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard fd >= 0, getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0, Int(size) == MemoryLayout<PeerCredentials>.size else {
            throw PasscodeError.serviceUnavailable("the system bus's daemon cannot be identified (not a local socket): service mode talks "
                                                   + "only to a bus run by root (check which bus DBUS_SYSTEM_BUS_ADDRESS names)")
        }
        // Inside a sandbox the socket is the proxy's, which runs as the user: the user or root
        // may have made it. What the sandbox sees is its own to arrange, so this guards against
        // others' redirection only; the name owner's uid, as the bus reports it, is still checked.
        if ServiceClient.inSandbox && (peer.uid == 0 || peer.uid == getuid()) { return }
        guard peer.uid == 0 else {
            throw PasscodeError.serviceUnavailable("the system bus at this address is run by uid \(peer.uid), not root: service mode talks "
                                                   + "only to a bus run by root (check which bus DBUS_SYSTEM_BUS_ADDRESS names)")
        }
    }

    /// The wait of `member` reached the call's deadline.
    private func timedOut(_ member: String) -> PasscodeError {
        let ms = ServiceClient.boundMicroseconds / 1000
        let bound = ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
        return .serviceUnavailable("no answer to \(member) within \(bound) from passcoded or the bus: one of them is stuck or "
                                   + "overloaded (see journalctl -u passcoded); whether the call took effect is not known: read the state again")
    }

    /// Answers an incoming call `m` with the error `name` (the reply copies both texts).
    func replyError(_ m: OpaquePointer, name: String, message: String) -> Int32 {
        name.withCString { n in
            message.withCString { text in
                let e = sd_bus_error(name: n, message: text, _need_free: 0)
                return withUnsafePointer(to: e) { bus.replyError(m, $0) }
            }
        }
    }

    /// The connection of this process, under `lock`. sd-bus refuses a connection in a child
    /// made by fork() (ECHILD), and the child must neither write to nor close the socket it
    /// shares with its parent: a child's first call opens a connection of its own, and the
    /// parent's is left untouched (its memory is not freed in the child).
    private func connected() throws(PasscodeError) -> OpaquePointer {
        guard let c = connection else { throw PasscodeError.misuse("the store is closed") }
        if connectionPid == getpid() { return c }
        var own: OpaquePointer?
        let r = bus.openBus(&own)
        guard r >= 0, let own else {
            throw ServiceClient.noBus(r)
        }
        // The child's own hook object; the parent's slot is the parent's (never unreferenced here).
        var slot: OpaquePointer?
        let r2 = bus.addObject(own, &slot, ServiceClient.hookPath, ServiceClient.hookHandler, Unmanaged.passUnretained(self).toOpaque())
        guard r2 >= 0 else {
            bus.closeBus(own)
            _ = bus.unref(own)
            throw PasscodeError.serviceUnavailable("cannot publish the hook object: \(String(cString: strerror(-r2)))")
        }
        connection = own
        connectionPid = getpid()
        hookSlot = slot
        serviceName = nil
        return own
    }

    private func appendText(_ m: OpaquePointer, _ text: String) -> Int32 {
        text.withCString { bus.appendBasic(m, CChar(UInt8(ascii: "s")), $0) }
    }

    /// Appends a passcode as a string: copied with its NUL into a buffer wiped when released.
    /// A NUL inside the digits would cut the string: sent as it is, the service answers Format.
    private func appendSecret(_ m: OpaquePointer, _ code: SecretBytes) -> Int32 {
        let terminated = SecretBytes(count: code.count + 1)
        return terminated.withMutableBytesForCaller { dst in
            code.withBytes { if $0.count > 0 { dst.copyMemory(from: $0) } }
            // A D-Bus string must be UTF-8 (sd-bus refuses the message otherwise, EINVAL). A
            // passcode is ASCII digits: a byte of 0x80 or more is a non-digit wherever it stands,
            // so it travels as '?', another non-digit, and the service answers FORMAT as the
            // embedded store does (same length, same status, same message).
            for i in 0..<code.count where dst[i] >= 0x80 { dst[i] = UInt8(ascii: "?") }
            return bus.appendBasic(m, CChar(UInt8(ascii: "s")), dst.baseAddress)
        }
    }

    private func unavailable(_ member: String, _ r: Int32) -> PasscodeError {
        .serviceUnavailable("calling passcoded (\(member)) failed: \(String(cString: strerror(-r)))")
    }

    /// The error of a failed call: a status the service named, or the bus's own failure.
    private func failure(_ member: String, _ r: Int32, _ error: sd_bus_error) -> PasscodeError {
        let name = error.name.map { String(cString: $0) } ?? ""
        let message = error.message.map { String(cString: $0) } ?? ""
        // "status N: message" (BusError): the status and the core's message after the prefix.
        if let (status, text) = BusError.parse(name: name, message: message) {
            return .service(status: status, message: text, waitSeconds: 0)
        }
        if name == "org.freedesktop.DBus.Error.InvalidArgs" {
            return PasscodeError.misuse("passcoded refused the arguments of \(member): \(message)")
        }
        let why = name.isEmpty ? String(cString: strerror(-r)) : "\(name): \(message)"
        return PasscodeError.serviceUnavailable("passcoded did not answer \(member): \(why)\(ServiceClient.proxyHint)")
    }

    /// The monotonic clock in microseconds, for the calls' deadlines.
    static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }

    /// The boot clock in seconds (CLOCK_BOOTTIME), for the kept passcode's window.
    static func bootSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec)
    }
}

/// struct ucred, as SO_PEERCRED fills it on Linux (pid_t, uid_t, gid_t: 32 bits each).
struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = UInt32.max
    var gid: UInt32 = UInt32.max
}

/// Ends a fingerprint read that waits on a handle's connection, from another thread: `cancel`
/// shuts the connection's socket down (shutdown(2), which wakes the waiting poll at once and
/// frees nothing), so the read's call ends, and passcoded, seeing the connection leave the bus,
/// stops the read and releases the reader. A handle once cancelled answers every later read
/// at once, so a cancel that comes between two reads is not lost. Only the reads are armed: a
/// cancel never cuts another call short.
final class CallCanceller: @unchecked Sendable {
    private let lock = Mutex()
    private var cancelled = false
    private var armed = false
    private var fd: Int32 = -1

    private static let refusal = PasscodeError.state("the fingerprint read was cancelled: the reader was released; nothing was counted")

    /// Runs a read armed for `cancel`; a read cancelled (before or while it waited) throws STATE.
    func run(_ body: () throws(PasscodeError) -> Void) throws(PasscodeError) {
        let already = lock.withLock { () -> Bool in
            if !cancelled { armed = true }
            return cancelled
        }
        if already { throw CallCanceller.refusal }
        defer { lock.withLock { armed = false } }
        do throws(PasscodeError) {
            try body()
        } catch {
            if lock.withLock({ cancelled }) { throw CallCanceller.refusal }
            throw error
        }
    }

    /// The connection's socket while an armed read waits on it (`ServiceClient.send`).
    func watch(_ socket: Int32) {
        lock.withLock {
            guard armed, socket >= 0 else { return }
            fd = socket
            if cancelled { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    func unwatch() {
        lock.withLock { fd = -1 }
    }

    func cancel() {
        lock.withLock {
            cancelled = true
            if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
