// Where passcoded keeps the stores, and the handles it holds open on them.
import Glibc
import PasscodeBus
import PasscodeCore

/// The stores of every uid, under one root the daemon's user owns (0700):
/// `<root>/<uid>/<app_id>.db`, each uid's folder 0700 too. Callers never see a path.
final class StoreRoot: @unchecked Sendable {
    let root: String
    let options: StoreOptions
    /// Open handles by (uid, app id): the rule that a repeated wrong guess counts once lives in
    /// the handle's memory (as in a host process). What belongs to a caller (its proof, the
    /// length it chose, its hooks) never does: each handle asks the calling thread for its
    /// caller's (ProofBook), so one caller's passcode proves nothing for another.
    private var open: [String: PasscodeStore] = [:]
    /// Guards `open`: the workers run calls of different uids at once (and of one uid while one
    /// waits on its host's hook).
    private let openLock = Mutex()
    /// The blank store (`blankStore`), under `openLock`.
    private var blank: PasscodeStore?
    /// The handles kept open at most (ServiceLimits.openHandles: 512 under passcoded's own
    /// descriptor limit), then dropped all at once.
    let maxOpenHandles: Int
    /// The most stores one uid may have: each new app id makes a file, and the folder is the
    /// service's disk, not the caller's (a caller inventing app ids must not fill it).
    /// The configuration's `max_stores_per_uid` (ServiceConfig.maxStoresPerUID, 32 unless set).
    let maxStoresPerUID: Int

    init(root: String, options: StoreOptions, maxStoresPerUID: Int = ServiceConfig().maxStoresPerUID, maxOpenHandles: Int = 512) {
        self.root = root
        self.maxOpenHandles = maxOpenHandles
        self.options = options
        self.maxStoresPerUID = maxStoresPerUID
    }

    /// Runs `body` on the (kept) handle of `uid`'s store `appID`, creating the uid's folder.
    /// The handle answers this call's caller its own state and hooks (ProofBook.carried): the
    /// uid's other connections use the same handle, and their calls run while this one waits on
    /// its host's hook.
    func withStore<R>(uid: uid_t, appID: AppID, _ body: (PasscodeStore) throws -> R) throws -> R {
        // A uid's calls overlap only while one waits on its host's hook (Scheduler), never while
        // a store is opened, so no two open one store at the same time, nor count a uid's stores
        // at once (`openStore`); kept anyway is the handle found first, should that ever change.
        let key = "\(uid)/\(appID)"
        if let store = openLock.withLock({ open[key] }) {
            return try ProofBook.shared.carried(on: store, uid: uid, appID: appID) {
                defer {
                    pushChanges(uid: uid, appID: appID, store)  // its watchers told (Service+Properties.swift)
                    endFingerWaits(key, store)
                }
                return try body(store)
            }
        }
        let opened = try openStore(uid: uid, appID: appID)
        let store = openLock.withLock { () -> PasscodeStore in
            if let first = open[key] { return first }
            // Dropped, not closed: another call may still be using its handle.
            if open.count >= maxOpenHandles { open.removeAll() }
            open[key] = opened
            return opened
        }
        return try ProofBook.shared.carried(on: store, uid: uid, appID: appID) {
            defer {
                pushChanges(uid: uid, appID: appID, store)
                endFingerWaits(key, store)
            }
            return try body(store)
        }
    }

    /// After a call on a store a fingerprint check waits on: unlocked now (the passcode), the
    /// check ends and the reader is released (FingerWaits, Service+Fingerprint.swift).
    private func endFingerWaits(_ key: String, _ store: PasscodeStore) {
        guard FingerWaits.shared.waiting(key), let status = try? store.lockStatus(), !status.locked else { return }
        FingerWaits.shared.cancel(key)
    }

    /// Forgets the handle kept on `uid`'s store `appID`, whose store was removed (Service+Remove.swift).
    func dropHandle(uid: uid_t, appID: AppID) {
        openLock.withLock { open["\(uid)/\(appID)"] = nil }
    }

    /// Runs a query (`body` only reads) on `uid`'s store `appID` when it exists, else on the
    /// blank store: a question about an app id that has no store creates nothing, neither the
    /// uid's folder nor a file (a new store answers as the blank one does: it is one).
    func withStoreForQuery<R>(uid: uid_t, appID: AppID, _ body: (PasscodeStore) throws -> R) throws -> R {
        // The connection's own state goes with a query too: the length it chose is its own answer.
        if let store = openLock.withLock({ open["\(uid)/\(appID)"] }) {
            return try ProofBook.shared.carried(on: store, uid: uid, appID: appID) { try body(store) }
        }
        var st = stat()
        if lstat("\(root)/\(uid)", &st) != 0 && errno == ENOENT { return try body(try blankStore()) }
        let folder = try userFolder(uid)  // a link or a folder of another owner is refused here
        if lstat("\(folder)/\(StoreRoot.fileStem(appID)).db", &st) != 0 && errno == ENOENT { return try body(try blankStore()) }
        return try withStore(uid: uid, appID: appID, body)
    }

    /// A store no caller reaches by name (`<root>/.blank/new.db`: an app id never starts with a
    /// dot), made once and never written after: what a new store answers to a query. Every uid's
    /// queries use it at once, with no caller's state: no call that keeps any runs on it.
    private func blankStore() throws -> PasscodeStore {
        try openLock.withLock {
            if let blank { return blank }
            let folder = "\(root)/.blank"
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw PasscodeError.io("the service's blank store cannot be made (\(String(cString: strerror(errno))))")
            }
            let store = try PasscodeStore(path: "\(folder)/new.db", options: options)
            blank = store
            return store
        }
    }

    /// Runs `body` on a handle of its own, closed afterwards: its proof of a passcode is this
    /// call's alone.
    func withFreshStore<R>(uid: uid_t, appID: AppID, _ body: (PasscodeStore) throws -> R) throws -> R {
        let store = try openStore(uid: uid, appID: appID)
        defer { store.close() }
        return try ProofBook.shared.carried(on: store, uid: uid, appID: appID) {
            defer { pushChanges(uid: uid, appID: appID, store) }
            return try body(store)
        }
    }

    /// A handle on `uid`'s store `appID` that asks the calling thread for its caller's state
    /// (ProofBook.serveCallers): never one whose own state a caller could leave to another.
    private func openStore(uid: uid_t, appID: AppID) throws -> PasscodeStore {
        let folder = try userFolder(uid)
        let path = "\(folder)/\(StoreRoot.fileStem(appID)).db"
        var st = stat()
        if lstat(path, &st) != 0 && StoreRoot.storeCount(folder) >= maxStoresPerUID {
            throw PasscodeError.full("uid \(uid) has \(maxStoresPerUID) stores, the most the service keeps for one user")
        }
        // The library's own hardened open: ownership and mode of the file, its -wal/-shm,
        // every folder above, the schema check, defensive SQLite.
        let store = try PasscodeStore(path: path, options: options)
        ProofBook.serveCallers(of: store)
        return store
    }

    /// The stores in a uid's folder (files ending in .db), and the names sandboxed apps reserved
    /// (a mark, `<stem>.app`, with no store yet: Service+Sandbox.swift).
    static func storeCount(_ folder: String) -> Int {
        guard let dir = opendir(folder) else { return Int.max }
        defer { closedir(dir) }
        var stores = Set<String>(), marks = Set<String>()
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name.hasSuffix(".db") { stores.insert(String(name.dropLast(3))) }
            if name.hasSuffix(".app") { marks.insert(String(name.dropLast(4))) }
        }
        return stores.count + marks.subtracting(stores).count
    }

    /// `<root>/<uid>`, made 0700 when missing; anything else in its place (a link, a file, a
    /// folder of another owner or mode) is refused, never followed or repaired.
    func userFolder(_ uid: uid_t) throws -> String {
        let folder = "\(root)/\(uid)"
        var st = stat()
        if lstat(folder, &st) != 0 {
            guard errno == ENOENT else { throw PasscodeError.io("the folder of uid \(uid) cannot be read") }
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw PasscodeError.io("the folder of uid \(uid) cannot be made (\(String(cString: strerror(errno))))")
            }
            guard lstat(folder, &st) == 0 else { throw PasscodeError.io("the folder of uid \(uid) cannot be read") }
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == geteuid(), st.st_mode & 0o7777 == 0o700 else {
            throw PasscodeError.permission("the service's folder for uid \(uid) is not a folder of its own with mode 0700; refusing it")
        }
        return folder
    }

    /// Checks (and, while root, makes) the root folder: a real folder, owned by `uid`, mode 0700.
    static func prepareRoot(_ root: String, owner uid: uid_t, gid: gid_t) -> String? {
        var st = stat()
        if lstat(root, &st) != 0 {
            guard errno == ENOENT else { return "\(root) cannot be read" }
            guard mkdir(root, 0o700) == 0, chown(root, uid, gid) == 0, lstat(root, &st) == 0 else {
                return "\(root) cannot be made: \(String(cString: strerror(errno)))"
            }
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { return "\(root) is not a folder (a link or a file); refusing it" }
        guard st.st_uid == uid, st.st_mode & 0o7777 == 0o700 else {
            return "\(root) must be owned by the service user (uid \(uid)) with mode 0700 (it has uid \(st.st_uid), mode 0\(String(st.st_mode & 0o7777, radix: 8)))"
        }
        return nil
    }
}

/// The clock of the stores: the system's, plus (for tests) an offset read from a root-owned
/// file named by the configuration: whole seconds ("90"), or milliseconds with an "ms" suffix
/// ("90500ms", for the C suite's millisecond steps). Only root can move it; a file that is not
/// root's, is unreadable or holds anything else, moves nothing.
enum ServiceClock {
    /// A frozen test clock's reading at offset 0 (the system's, when first seen frozen).
    nonisolated(unsafe) private static var frozenBase: ClockReading?
    private static let frozenLock = Mutex()

    static func source(offsetFile: String?) -> ClockSource {
        guard let file = offsetFile else { return SystemClock.read }
        return {
            let (offset, frozen, boot) = readOffsetMs(file)
            var reading = SystemClock.read()
            if frozen {
                // "... frozen": the clock stands still but for the offset, so that a test can
                // place a call exactly 5 minutes after another (the system clock would add the
                // milliseconds the test itself took).
                reading = frozenLock.withLock {
                    if frozenBase == nil { frozenBase = reading }
                    return frozenBase!
                }
            }
            reading.bootMs += offset
            reading.wallMs += offset
            // "... boot=N" (N > 0): the machine as after its N-th restart, a boot id of its own
            // (the tests of a lockout that outlives a reboot).
            if boot > 0 { reading.bootID ^= boot &* 0x9E37_79B9_7F4A_7C15 }
            return reading
        }
    }

    /// The offset in milliseconds ("N" seconds or "Nms"), whether the word "frozen" follows, and
    /// the boot number a word "boot=N" gives (0: this boot).
    private static func readOffsetMs(_ path: String) -> (Int64, Bool, UInt64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return (0, false, 0) }
        defer { close(fd) }
        do { try RootOwned.check(fd: fd, path: path, what: "the test clock") } catch { return (0, false, 0) }
        var buffer = [UInt8](repeating: 0, count: 48)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return (0, false, 0) }
        let words = String(decoding: buffer[0..<n], as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == " " })
        let text = words.first ?? ""
        let frozen = words.count > 1 && words[1] == "frozen"
        let boot = words.dropFirst().first(where: { $0.hasPrefix("boot=") }).flatMap { UInt64($0.dropFirst(5)) } ?? 0
        let limit: Int64 = 100 * 365 * 86400
        if text.hasSuffix("ms") {
            guard let v = Int64(text.dropLast(2)), v >= 0, v <= limit * 1000 else { return (0, false, 0) }
            return (v, frozen, boot)
        }
        guard let v = Int64(text), v >= 0, v <= limit else { return (0, false, 0) }
        return (v * 1000, frozen, boot)
    }
}
