// Service mode's back end: the calls of a store handle carried to passcoded over the system bus
// (org.libpasscode.Passcode1), where the same core answers them under the service's own uid.
// libsystemd is loaded with dlopen at the first open in service mode, as tpm2-tss is for the
// TPM, so libpasscode.so's NEEDED list stays as it is and hosts without it lose nothing.
import CSdBus
import Glibc
import PasscodeCore

/// libsystemd's sd-bus calls, loaded once for the life of the process.
struct SdBusLibrary: @unchecked Sendable {
    typealias Bus = OpaquePointer
    typealias Message = OpaquePointer
    let openSystem: @convention(c) (UnsafeMutablePointer<Bus?>?) -> Int32
    let flushCloseUnref: @convention(c) (Bus?) -> Bus?
    let newMethodCall: @convention(c) (Bus?, UnsafeMutablePointer<Message?>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                       UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let appendBasic: @convention(c) (Message?, CChar, UnsafeRawPointer?) -> Int32
    let readBasic: @convention(c) (Message?, CChar, UnsafeMutableRawPointer?) -> Int32
    /// sd_bus_message_read_array: a pointer into the message's own memory (the data key's reply).
    let readArray: @convention(c) (Message?, CChar, UnsafeMutablePointer<UnsafeRawPointer?>?, UnsafeMutablePointer<Int>?) -> Int32
    let call: @convention(c) (Bus?, Message?, UInt64, UnsafeMutablePointer<sd_bus_error>?, UnsafeMutablePointer<Message?>?) -> Int32
    let messageUnref: @convention(c) (Message?) -> Message?
    let errorFree: @convention(c) (UnsafeMutablePointer<sd_bus_error>?) -> Void
    /// sd_bus_message_sensitive (systemd 245 and later): the message's memory is wiped when
    /// freed. nil with an older libsystemd (the passcode's copy in the message is then not wiped).
    let sensitive: (@convention(c) (Message?) -> Int32)?

    private static let lock = Mutex()
    nonisolated(unsafe) private static var loaded: SdBusLibrary?

    static func shared() throws -> SdBusLibrary {
        try lock.withLock {
            if let loaded { return loaded }
            let library = try SdBusLibrary()
            loaded = library
            return library
        }
    }

    private init() throws {
        guard let h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "libsystemd.so.0"
            throw PasscodeError.serviceUnavailable("service mode needs libsystemd (\(why)); install libsystemd0")
        }
        func symbol<T>(_ name: String, _: T.Type = T.self) throws -> T {
            guard let p = dlsym(h, name) else {
                throw PasscodeError.serviceUnavailable("libsystemd lacks \(name); service mode needs systemd 221 or later")
            }
            return unsafeBitCast(p, to: T.self)
        }
        openSystem = try symbol("sd_bus_open_system")
        flushCloseUnref = try symbol("sd_bus_flush_close_unref")
        newMethodCall = try symbol("sd_bus_message_new_method_call")
        appendBasic = try symbol("sd_bus_message_append_basic")
        readBasic = try symbol("sd_bus_message_read_basic")
        readArray = try symbol("sd_bus_message_read_array")
        call = try symbol("sd_bus_call")
        messageUnref = try symbol("sd_bus_message_unref")
        errorFree = try symbol("sd_bus_error_free")
        sensitive = dlsym(h, "sd_bus_message_sensitive").map { unsafeBitCast($0, to: (@convention(c) (Message?) -> Int32).self) }
    }
}

/// A failure the service answered: its status and message, as the embedded store would give them.
struct ServiceFailure: Error {
    /// A `Status` raw value (the enum is not Sendable; an Error must be).
    let status: Int32
    let message: String
    let waitSeconds: Int64
}

/// One argument of a call.
enum BusArgument {
    case text(String)
    case secret(SecretBytes)
    case int32(Int32)
    case int64(Int64)
}

/// A store handle in service mode: one bus connection (the system bus, or the address in
/// DBUS_SYSTEM_BUS_ADDRESS, as sd-bus reads it), used by one call at a time.
final class ServiceClient: StoreBackend, @unchecked Sendable {
    static let name = "org.libpasscode.Passcode1"
    static let path = "/org/libpasscode/Passcode1"
    /// How long a call waits for its answer: a verify can queue behind others of the same uid.
    static let timeoutMicroseconds: UInt64 = 120_000_000
    /// How long a passcode set or checked on the handle proves the user (as in the core).
    static let proofSeconds: Int64 = 300
    /// The longest string passcoded reads (its `Service.maxArgumentBytes`).
    static let maxSecretBytes = 256

    let appID: String
    private let bus: SdBusLibrary
    private var connection: OpaquePointer?
    private let lock = Mutex()
    /// The passcode this handle last set or checked with success, and when (boot clock,
    /// seconds): passcoded checks a weakening SetSetting's passcode in the same call.
    private var proof: (code: SecretBytes, at: Int64)?
    /// The data key as this handle holds it, in this process (ServiceClient+Key.swift).
    let keyState = ClientKeyState()

    /// Connects and asks for the store's state once, so that an unreachable service or an app
    /// id the service refuses fails here, as a bad path fails an embedded open.
    init(appID: String) throws {
        self.appID = appID
        bus = try SdBusLibrary.shared()
        var c: OpaquePointer?
        let r = bus.openSystem(&c)
        guard r >= 0, let c else {
            throw PasscodeError.serviceUnavailable("cannot connect to the system bus: \(String(cString: strerror(-r)))")
        }
        connection = c
        do { _ = try state() } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    func close() {
        lock.withLock {
            if let c = connection { _ = bus.flushCloseUnref(c) }
            connection = nil
            proof = nil
        }
        keyState.close()
    }

    // MARK: - StoreBackend

    func isPasscodeSet() throws -> Bool { try state().isSet }
    func isLockEnabled() throws -> Bool { try state().lockEnabled }
    func failedAttempts() throws -> Int { Int(try state().failures) }
    func lockoutRemainingSeconds() throws -> Int64 { try state().lockout }
    func isResetRequired() throws -> Bool { try state().resetRequired }

    // The calls that release the data key on an embedded handle get it here too, for
    // `passcode_seal` (ServiceClient+Key.swift).
    func setFirstPasscode(_ code: SecretBytes) throws {
        _ = try setPasscode(code)
    }

    func checkPasscode(_ code: SecretBytes) throws {
        _ = try verifyReleasingKey(code, handingOut: false)
    }

    func authorize(_ code: SecretBytes) throws {
        try checkPasscode(code)
    }

    func changePasscode(current: SecretBytes, new: SecretBytes) throws {
        _ = try changePasscodeReturningKey(current: current, new: new)
    }

    /// As embedded, a passcode this handle set or checked proves the user for 5 minutes: kept
    /// (a wiped buffer) for the next weakening setting change, which passcoded checks again.
    func keepProof(_ code: SecretBytes) {
        let kept = code.withBytes { SecretBytes(copying: $0) }
        lock.withLock { proof = (kept, ServiceClient.bootSeconds()) }
    }

    func removePasscode(current: SecretBytes) throws {
        try call("RemovePasscode", [.secret(current)]) { _ in }
        lock.withLock { proof = nil }
        keyState.dropKey()  // as embedded: the key goes with the passcode
    }

    func turnOff(current: SecretBytes) throws {
        _ = try disable(current: current)
    }

    func enable() throws {
        try call("EnablePasscode", []) { _ in }
    }

    func passcodeLength() throws -> Int {
        var length: Int32 = 0
        try call("GetLength", []) { length = try $0.int32() }
        return Int(length)
    }

    func setPasscodeLength(_ n: Int) throws {
        try call("SetLength", [.int32(Int32(clamping: n))]) { _ in }
    }

    func get(_ setting: Setting) throws -> Int64 {
        var value: Int64 = 0
        try call("GetSetting", [.text(setting.spec.key)]) { value = try $0.int64() }
        return value
    }

    func set(_ setting: Setting, to value: Int64) throws {
        let now = ServiceClient.bootSeconds()
        let given = lock.withLock { () -> SecretBytes? in
            guard let p = proof, now - p.at < ServiceClient.proofSeconds else { proof = nil; return nil }
            return p.code
        }
        try call("SetSetting", [.text(setting.spec.key), .int64(value), .secret(given ?? SecretBytes(count: 0))]) { _ in }
    }

    func lockStatus() throws -> LockStatus { try lockScreen().status }

    func lockScreen() throws -> LockScreen {
        var screen: LockScreen?
        try call("GetLockScreen", []) { r in
            let locked = try r.bool(), reason = try r.int32(), lockout = try r.int64(), failures = try r.uint32()
            let reset = try r.bool(), refusal = try r.int32(), lead = try r.bool(), kind = try r.int32()
            let set = try r.bool(), enabled = try r.bool()
            guard let why = LockReason(checked: reason), let refused = BiometricRefusal(checked: refusal),
                  let biometric = BiometricKind(checked: kind) else {
                throw PasscodeError.serviceUnavailable("passcoded answered GetLockScreen with a value this library does not know")
            }
            screen = LockScreen(status: LockStatus(locked: locked, reason: why), lockoutSeconds: lockout, failedAttempts: Int64(failures),
                                resetRequired: reset, refusal: refused, lead: lead, kind: biometric, passcodeSet: set, lockEnabled: enabled)
        }
        return screen!
    }

    // MARK: - Calls

    struct State {
        var isSet = false, lockEnabled = false, failures: UInt32 = 0, lockout: Int64 = 0, resetRequired = false
    }

    private func state() throws -> State {
        var s = State()
        try call("GetState", []) { r in
            s = State(isSet: try r.bool(), lockEnabled: try r.bool(), failures: try r.uint32(), lockout: try r.int64(),
                      resetRequired: try r.bool())
        }
        return s
    }

    /// Reads a reply's values in order.
    struct Reader {
        let bus: SdBusLibrary
        let message: OpaquePointer
        let member: String

        func read<T>(_ type: UInt8, _ value: T) throws -> T {
            var v = value
            let r = withUnsafeMutableBytes(of: &v) { bus.readBasic(message, CChar(type), $0.baseAddress) }
            guard r > 0 else { throw PasscodeError.serviceUnavailable("passcoded's answer to \(member) is not the one expected") }
            return v
        }
        func bool() throws -> Bool { try read(UInt8(ascii: "b"), Int32(0)) != 0 }
        func int32() throws -> Int32 { try read(UInt8(ascii: "i"), Int32(0)) }
        func uint32() throws -> UInt32 { try read(UInt8(ascii: "u"), UInt32(0)) }
        func int64() throws -> Int64 { try read(UInt8(ascii: "x"), Int64(0)) }
    }

    /// Calls `member(app_id, arguments...)` and hands its reply to `read`. An error reply
    /// org.libpasscode.Error.<Name> becomes that status with the service's message.
    func call(_ member: String, _ arguments: [BusArgument], _ read: (Reader) throws -> Void) throws {
        do {
            try callLocked(member, arguments, read)
        } catch let f as ServiceFailure where f.status == Status.errLockedOut.rawValue && member != "GetState" {
            // The wait for passcode_errwait, as the embedded store gives it with the failure.
            throw ServiceFailure(status: f.status, message: f.message, waitSeconds: (try? state().lockout) ?? 0)
        }
    }

    private func callLocked(_ member: String, _ arguments: [BusArgument], _ read: (Reader) throws -> Void) throws {
        for case .secret(let code) in arguments where code.count > ServiceClient.maxSecretBytes {
            // passcoded refuses longer strings (InvalidArgs); embedded, such a passcode is FORMAT.
            throw PasscodeError.format("the passcode is too long")
        }
        try lock.withLock {
            guard let c = connection else { throw PasscodeError.misuse("the store is closed") }
            var m: OpaquePointer?
            var r = bus.newMethodCall(c, &m, ServiceClient.name, ServiceClient.path, ServiceClient.name, member)
            guard r >= 0, let m else { throw unavailable(member, r) }
            defer { _ = bus.messageUnref(m) }
            if arguments.contains(where: { if case .secret = $0 { return true } else { return false } }) { _ = bus.sensitive?(m) }
            r = appendText(m, appID)
            for argument in arguments where r >= 0 {
                switch argument {
                case .text(let t): r = appendText(m, t)
                case .int32(var v): r = bus.appendBasic(m, CChar(UInt8(ascii: "i")), &v)
                case .int64(var v): r = bus.appendBasic(m, CChar(UInt8(ascii: "x")), &v)
                case .secret(let code): r = appendSecret(m, code)
                }
            }
            guard r >= 0 else { throw unavailable(member, r) }
            var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
            defer { bus.errorFree(&error) }
            var reply: OpaquePointer?
            r = bus.call(c, m, ServiceClient.timeoutMicroseconds, &error, &reply)
            if r < 0 { throw failure(member, r, error) }
            guard let reply else { throw unavailable(member, -EBADMSG) }
            _ = bus.sensitive?(reply)  // wiped when freed: a reply may carry the data key
            defer { _ = bus.messageUnref(reply) }
            try read(Reader(bus: bus, message: reply, member: member))
        }
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
            return bus.appendBasic(m, CChar(UInt8(ascii: "s")), dst.baseAddress)
        }
    }

    private func unavailable(_ member: String, _ r: Int32) -> PasscodeError {
        .serviceUnavailable("calling passcoded (\(member)) failed: \(String(cString: strerror(-r)))")
    }

    /// The error of a failed call: a status the service named, or the bus's own failure.
    private func failure(_ member: String, _ r: Int32, _ error: sd_bus_error) -> Error {
        let name = error.name.map { String(cString: $0) } ?? ""
        var message = error.message.map { String(cString: $0) } ?? ""
        let prefix = "org.libpasscode.Error."
        if name.hasPrefix(prefix) {
            let statusName = String(name.dropFirst(prefix.count))
            if let status = ServiceClient.status(named: statusName) {
                // "status N: message" (Service.errorReply): the core's message after the prefix.
                if message.hasPrefix("status "), let colon = message.firstIndex(of: ":") {
                    message = String(message[message.index(after: colon)...].drop(while: { $0 == " " }))
                }
                return ServiceFailure(status: status.rawValue, message: message, waitSeconds: 0)
            }
        }
        if name == "org.freedesktop.DBus.Error.InvalidArgs" {
            return PasscodeError.misuse("passcoded refused the arguments of \(member): \(message)")
        }
        let why = name.isEmpty ? String(cString: strerror(-r)) : "\(name): \(message)"
        return PasscodeError.serviceUnavailable("passcoded did not answer \(member): \(why)")
    }

    /// The status whose `serviceName` is `name` (the service's error names).
    static func status(named name: String) -> Status? {
        (0...Int32(255)).lazy.compactMap { Status(rawValue: $0) }.first { $0.serviceName == name }
    }

    /// The boot clock in seconds (CLOCK_BOOTTIME), for the proof's 5 minutes.
    static func bootSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
