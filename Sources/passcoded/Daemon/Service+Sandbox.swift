// Callers in a sandbox (Flatpak, or bubblewrap as flatpak runs it): each is confined to the
// stores of the app id its sandbox names, read by passcoded, never taken from the caller.
//
// A sandboxed app reaches the bus through xdg-dbus-proxy, which runs in a bubblewrap of its own
// with the app's /.flatpak-info; the bus reports the proxy's pid. The sandbox reader
// (passcode_sandbox.c, a helper forked while root that keeps CAP_SYS_PTRACE and
// CAP_DAC_READ_SEARCH alone) reads that file through /proc/<pid>/root; passcoded then asks the
// bus again for the connection's pid, and takes the answer only if it is the same (the helper has
// checked, through a pidfd and the start time, that the process it read was that pid's all
// along). The verdict is kept for the connection's life: a sandbox that swaps its file later
// gets nothing more. A reader that did not answer in time (or is not running) gives no verdict:
// that call is refused and the connection's next one asks again. Debian 12's dbus-daemon gives no ProcessFD, and passcoded's connection
// takes no file descriptors, so the pid is what is read (see passcoded(8), "Sandboxed callers").
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

/// What a connection is, read at its first call.
enum SandboxVerdict: Sendable {
    /// Not in a sandbox: the caller names its stores as before.
    case unsandboxed
    /// In the sandbox of this verified app id.
    case app(String)
    /// In a sandbox whose app id cannot be verified: every call refused with this status.
    case refused(status: Int32, message: String)
}

/// The verdicts of the connections (by unique name), on the bus thread only.
///
/// The reader is asked without waiting: a connection's first call is parked (kept, referenced)
/// until the reader answers, and the bus thread goes on with every other caller meanwhile
/// (`pump`, from the main loop, takes the answers and runs the parked calls). Each uid has at
/// most one question out at a time; its other new connections wait their turn, in the order
/// they called, so that one uid whose sandboxes take long to read holds only itself.
final class SandboxBook: @unchecked Sendable {
    static let shared = SandboxBook()
    /// passcoded's end of the sandbox reader's socketpair (-1: none started; every caller is
    /// then refused in the sandbox check, unsandboxed ones too, since none can be told apart).
    var helperFD: Int32 = -1
    /// How long the reader is given to answer one question (its worker is killed after 2.5 s).
    static let answerMilliseconds: UInt64 = 3000
    /// Calls one connection, and one uid, may have parked before their sandbox is read; more are
    /// refused (LimitsExceeded), as the scheduler's queues are bounded.
    static let maxParkedPerConnection = 32
    static let maxParkedPerUID = 256
    private var verdicts: [String: SandboxVerdict] = [:]
    /// A verdict for the calls being run again now, when it is not kept (the reader did not answer).
    private var passing: (sender: String, verdict: SandboxVerdict)?

    private struct Waiting {
        let uid: uid_t
        var calls: [MessageRef] = []
    }
    private struct Question {
        let sender: String
        let pid: pid_t
        let serial: UInt32
        let deadline: UInt64
    }
    /// The connections whose calls are parked, by unique name.
    private var waiting: [String: Waiting] = [:]
    /// Each uid's connections waiting for its question's turn, in the order they called.
    private var turns: [uid_t: [String]] = [:]
    /// Each uid's question out, at most one.
    private var asked: [uid_t: Question] = [:]
    private var parkedPerUID: [uid_t: Int] = [:]
    private var serial: UInt32 = 0
    /// Runs a parked call again (the service's handle), set by main.
    var rerun: ((OpaquePointer) -> Void)?

    /// The verdict of the connection that sent `m`, when it is known (kept, or being passed to
    /// its parked calls); nil while its sandbox is not read.
    func known(_ m: OpaquePointer) -> SandboxVerdict? {
        guard let senderPointer = sd_bus_message_get_sender(m) else {
            return .refused(status: BusStatus.errSandboxUnverified, message: "the caller has no name on the bus; its sandbox cannot be read")
        }
        let sender = String(cString: senderPointer)
        if let passing, passing.sender == sender { return passing.verdict }
        return verdicts[sender]
    }

    /// The verdict of the connection that sent `m`, which its call was parked for (`park`).
    func verdict(_ m: OpaquePointer) -> SandboxVerdict {
        known(m) ?? .refused(status: BusStatus.errSandboxUnverified, message: "the caller's sandbox is not read yet; call again")
    }

    /// Parks the call `m` of `uid` until its connection's sandbox is read (the reader is asked
    /// now when the uid has no question out). nil, or the refusal when too many are parked.
    func park(_ m: OpaquePointer, uid: uid_t, sender: String) -> String? {
        var w = waiting[sender] ?? Waiting(uid: uid)
        if w.calls.count >= SandboxBook.maxParkedPerConnection {
            return "this connection has \(SandboxBook.maxParkedPerConnection) calls waiting for its sandbox to be read"
        }
        if parkedPerUID[uid, default: 0] >= SandboxBook.maxParkedPerUID {
            return "this user has \(SandboxBook.maxParkedPerUID) calls waiting for their sandboxes to be read"
        }
        let first = waiting[sender] == nil
        sd_bus_message_ref(m)
        w.calls.append(MessageRef(m))
        waiting[sender] = w
        parkedPerUID[uid, default: 0] += 1
        if first {
            turns[uid, default: []].append(sender)
            startNext(uid: uid, bus: sd_bus_message_get_bus(m))
        }
        return nil
    }

    /// Asks the reader about the next connection of `uid` in turn, if the uid has none out.
    private func startNext(uid: uid_t, bus: OpaquePointer?) {
        while asked[uid] == nil, var queue = turns[uid], !queue.isEmpty {
            let sender = queue.removeFirst()
            turns[uid] = queue.isEmpty ? nil : queue
            guard let w = waiting[sender], let first = w.calls.first else { continue }
            var pid: pid_t = 0
            guard passcode_bus_sender_pid(first.pointer, &pid) >= 0 else {
                resolve(sender, .refused(status: BusStatus.errSandboxUnverified,
                                         message: "the caller's process cannot be established; its sandbox cannot be read"), keep: false)
                continue
            }
            serial &+= 1
            let r = passcode_sandbox_ask(helperFD, serial, pid, uid)
            if r == -EPIPE || r == -ECONNRESET {
                log("the sandbox reader has gone (\(String(cString: strerror(-r)))): passcoded stops, to be started again with a new one")
                exit(1)
            }
            guard r >= 0 else {
                resolve(sender, .refused(status: BusStatus.errSandboxUnverified,
                                         message: "the sandbox reader cannot be asked now (\(String(cString: strerror(-r)))); the caller's sandbox "
                                             + "cannot be read now, so nothing is opened for it (try again)"), keep: false)
                continue
            }
            asked[uid] = Question(sender: sender, pid: pid, serial: serial,
                                  deadline: monotonicMicroseconds() + SandboxBook.answerMilliseconds * 1000)
        }
    }

    /// Gives `sender` its verdict (kept or not), runs its parked calls with it, and frees its turn.
    private func resolve(_ sender: String, _ verdict: SandboxVerdict, keep: Bool) {
        if keep { verdicts[sender] = verdict }
        guard let w = waiting.removeValue(forKey: sender) else { return }
        parkedPerUID[w.uid] = parkedPerUID[w.uid, default: 0] - w.calls.count > 0 ? parkedPerUID[w.uid, default: 0] - w.calls.count : nil
        passing = (sender, verdict)
        for call in w.calls {
            rerun?(call.pointer)
            sd_bus_message_unref(call.pointer)
        }
        passing = nil
    }

    /// The poll timeout (ms) until the earliest question's deadline; -1 when none is out.
    func timeoutMilliseconds() -> Int32 {
        guard let earliest = asked.values.map(\.deadline).min() else { return -1 }
        let now = monotonicMicroseconds()
        return earliest <= now ? 0 : Int32(clamping: (earliest - now + 999) / 1000)
    }

    /// Takes the reader's answers and the questions past their deadline (bus thread, main loop).
    func pump(_ bus: OpaquePointer) {
        var id = [CChar](repeating: 0, count: Int(PASSCODE_SANDBOX_ID_MAX) + 1)
        var message = [CChar](repeating: 0, count: 256)
        while true {
            var answered: UInt32 = 0
            let code = passcode_sandbox_take(helperFD, &answered, &id, id.count, &message, message.count)
            if code == -EAGAIN { break }
            if code < 0 {
                // The reader is gone (it never exits while passcoded runs): without it no sandboxed
                // caller can be told apart, so passcoded ends with an error, and systemd
                // (Restart=on-failure) starts it again with a new reader. Nothing is lost: every
                // count is in the stores, and the callers' next calls are answered by the new one.
                log("the sandbox reader has gone (\(String(cString: strerror(-code)))): passcoded stops, to be started again with a new one")
                exit(1)
            }
            guard let (uid, q) = asked.first(where: { $0.value.serial == answered }) else { continue }  // a late answer
            asked[uid] = nil
            let (verdict, keep) = SandboxBook.verdict(of: code, id: id, message: message, bus: bus, sender: q.sender, pid: q.pid)
            resolve(q.sender, verdict, keep: keep)
            startNext(uid: uid, bus: bus)
        }
        let now = monotonicMicroseconds()
        for (uid, q) in asked where q.deadline <= now {
            asked[uid] = nil
            resolve(q.sender, .refused(status: BusStatus.errSandboxUnverified,
                                       message: "the sandbox reader did not answer in time; the caller's sandbox cannot be read now, so nothing is opened for it (try again)"),
                    keep: false)
            startNext(uid: uid, bus: bus)
        }
    }

    /// Forgets the verdict of a connection that closed (its parked calls, if any, are still answered).
    func forget(sender: String) {
        verdicts[sender] = nil
    }

    /// The verdict of the reader's answer `code` about `sender`'s process `pid`, and whether it is
    /// kept for the connection's life.
    private static func verdict(of code: Int32, id: [CChar], message: [CChar], bus: OpaquePointer, sender: String,
                                pid: pid_t) -> (SandboxVerdict, Bool) {
        // The connection's pid once more, asked of the bus now: the process read must still be it.
        var again: pid_t = 0
        guard passcode_bus_name_pid(bus, sender, &again) >= 0, again == pid else {
            return (.refused(status: BusStatus.errSandboxUnverified, message: "the caller's connection changed while its sandbox was read"), true)
        }
        switch code {
        case Int32(PASSCODE_SANDBOX_NONE): return (.unsandboxed, true)
        case Int32(PASSCODE_SANDBOX_APP): return (.app(Service.message(id)), true)
        case Int32(PASSCODE_SANDBOX_UNAVAILABLE):
            // The reader is busy with other callers: this call is refused, the next one asks again.
            return (.refused(status: BusStatus.errSandboxUnverified, message: "\(Service.message(message)); the caller's sandbox cannot be read now, so nothing is opened for it (try again)"), false)
        case Int32(PASSCODE_SANDBOX_MALFORMED):
            return (.refused(status: BusStatus.errSandboxUnverified, message: "\(Service.message(message)): the app cannot be verified, so nothing is opened for it"), true)
        default:
            return (.refused(status: BusStatus.errSandboxUnverified, message: "\(Service.message(message)); the caller's sandbox cannot be read, so nothing is opened for it"), true)
        }
    }
}

extension Service {
    /// The store a call names, admitted for its caller: for an unsandboxed caller the app id's
    /// rule (`AppID`, as always); for a sandboxed one its verified id or a name under it
    /// (`org.example.App.work`), on a store no other sandboxed app has marked as its own (and
    /// marked with this app's id when no app has). Each refusal is a status of its own, before
    /// anything is opened or counted. Called by the generated dispatch, on the bus thread.
    func admit(_ text: String, _ m: OpaquePointer, caller: uid_t) throws -> AppID {
        switch SandboxBook.shared.verdict(m) {
        case .unsandboxed:
            guard let app = AppID(text) else { throw AppID.invalid }
            return app
        case .refused(let status, let message):
            throw Service.refusal(status, message)
        case .app(let verified):
            guard text == verified || text.hasPrefix(verified + "."), let app = AppID(sandboxed: text) else {
                throw Service.refusal(BusStatus.errSandboxWrongApp,
                                      "the app is verified as \(verified) by its sandbox: it may open \(verified) and stores under it "
                                      + "(\(verified).NAME), not \(Service.quoted(text)); nothing was opened or counted")
            }
            try stores.claim(uid: caller, appID: app, for: verified)
            return app
        }
    }

    /// A read of the properties of `caller`'s store `app` (its object's path decoded) by the
    /// sender of `m`: an unsandboxed caller reads any store of its uid, as before; a sandboxed one
    /// only a store it watches, so one admitted to it by the same rule as a call (`admit`); one
    /// whose sandbox cannot be read nothing. Each refusal names the reader's verified id.
    func admitPropertyRead(_ app: String, _ m: OpaquePointer, caller: uid_t) throws {
        switch SandboxBook.shared.verdict(m) {
        case .unsandboxed:
            return
        case .refused(let status, let message):
            throw Service.refusal(status, message)
        case .app(let verified):
            let sender = sd_bus_message_get_sender(m).map { String(cString: $0) } ?? ""
            guard app == verified || app.hasPrefix(verified + "."), PushedStates.shared.isWatcher(sender, uid: caller, app: app) else {
                throw Service.refusal(BusStatus.errSandboxWrongApp,
                                      "the app is verified as \(verified) by its sandbox: it reads the properties of the stores it "
                                      + "watches of \(verified) and under it, not of \(Service.quoted(app)); nothing was read")
            }
        }
    }

    /// `text` cut to `AppID.maxSandboxedBytes` bytes with its control characters escaped (a
    /// newline as \n, any other as \xHH): a caller's text quoted in a message never starts a line.
    static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(AppID.maxSandboxedBytes) {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x5C: out += "\\\\"
            case 0..<0x20, 0x7F: out += "\\x" + String(scalar.value, radix: 16).leftPadded(2)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func refusal(_ status: Int32, _ message: String) -> CallError {
        let (name, text) = BusError.reply(status: status, message: message)
        return CallError(name: name, message: text)
    }
}

extension StoreRoot {
    /// The file name of a store, without ".db": the app id itself up to 64 bytes (every id an
    /// unsandboxed caller may name); a longer one, which only a sandboxed app with a long verified
    /// id can name, is its first 64 bytes, '+' (in no app id) and 32 hex digits of its SHA-256:
    /// a name of its own that fits the filesystem's 255 bytes with "-journal" after it.
    static func fileStem(_ appID: AppID) -> String {
        let bytes = Array(appID.name.utf8)
        guard bytes.count > AppID.maxBytes else { return appID.name }
        let digest = Sodium.sha256(bytes).prefix(16)
        let hex = digest.map { b -> String in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(b >> 4)], digits[Int(b & 15)]], as: UTF8.self)
        }.joined()
        return String(decoding: bytes.prefix(AppID.maxBytes), as: UTF8.self) + "+" + hex
    }

    /// The mark of a store that a sandboxed app opened: `<stem>.app`, holding its verified id.
    func markPath(_ folder: String, _ appID: AppID) -> String { "\(folder)/\(StoreRoot.fileStem(appID)).app" }

    /// Checks that `uid`'s store `appID` is `verified`'s, marking it so when no sandboxed app
    /// has: a store another sandboxed app marked is refused (SandboxStoreOfAnotherApp). The mark
    /// of a store not made yet reserves its name and counts as one of the uid's stores.
    func claim(uid: uid_t, appID: AppID, for verified: String) throws {
        let folder = try userFolder(uid)
        let mark = markPath(folder, appID)
        if let owner = try readMark(mark) {
            guard owner == verified else {
                throw Service.refusal(BusStatus.errSandboxStoreOfAnotherApp,
                                      "the store \(appID.name) belongs to the sandboxed app \(owner); the app verified as \(verified) "
                                      + "may not open it; nothing was opened or counted")
            }
            return
        }
        var st = stat()
        if lstat("\(folder)/\(StoreRoot.fileStem(appID)).db", &st) != 0 && StoreRoot.storeCount(folder) >= maxStoresPerUID {
            throw PasscodeError.full("uid \(uid) has \(maxStoresPerUID) stores, the most the service keeps for one user")
        }
        let fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { return try claim(uid: uid, appID: appID, for: verified) }
            throw PasscodeError.io("the mark of the store \(appID.name) cannot be made (\(String(cString: strerror(errno))))")
        }
        let bytes = Array((verified + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced else {
            unlink(mark)
            throw PasscodeError.io("the mark of the store \(appID.name) cannot be written")
        }
    }

    /// The app id a store's mark holds; nil when it has none. A mark that is not passcoded's own
    /// regular file of at most 256 bytes is refused, never trusted.
    private func readMark(_ path: String) throws -> String? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw PasscodeError.permission("a store's mark cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid(), st.st_size <= 256 else {
            throw PasscodeError.permission("a store's mark is not a file of the service's own; refusing it")
        }
        var buffer = [UInt8](repeating: 0, count: 257)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { throw PasscodeError.corrupt("a store's mark is empty") }
        return String(decoding: buffer[0..<n].prefix(while: { $0 != 10 }), as: UTF8.self)
    }

    /// Removes the mark of `uid`'s store `appID` (the store was removed): its name is free again.
    func removeMark(uid: uid_t, appID: AppID) {
        unlink(markPath("\(root)/\(uid)", appID))
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

/// Copies `text` into the C buffer `out` of `size` bytes, cut and NUL-terminated.
func strlcpyBytes(_ out: UnsafeMutablePointer<CChar>, _ text: String, _ size: Int) -> Int {
    let bytes = Array(text.utf8.prefix(size - 1))
    for (i, b) in bytes.enumerated() { out[i] = CChar(bitPattern: b) }
    out[bytes.count] = 0
    return bytes.count
}
