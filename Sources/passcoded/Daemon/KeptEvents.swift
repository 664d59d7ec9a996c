// The events of a uid's removed stores, which passcoded keeps for that uid: RemoveStore would
// otherwise take the store's log with its file, and a process of the user could erase what it
// did (Forgot, then RemoveStore). The removed store's log goes into the uid's
// `<root>/<uid>/.removed-events` (an app id never starts with a dot) in the removing
// transaction, and GetEventLog and UserGetEventLog of that app id answer it after the log of
// the store there now, if any. Kept `keptDays` days and at most `maxKeptEvents` events a uid;
// root's `passcodectl remove` of the uid's folder (or userdel's cleanup) is the way to drop it.
// One line an event, oldest first: app id, kind, wall-clock ms and the detail (`\`, tab and
// newline escaped), separated by tabs.
import Glibc
import PasscodeBus
import PasscodeCore

extension StoreRoot {
    /// Days a removed store's events are kept: the store's own log keeps 90 days.
    static let keptDays: Int64 = 90
    /// Events kept a uid over all its removed stores (oldest dropped first): four full store logs.
    static let maxKeptEvents = 4096
    /// The file's name in the uid's folder.
    static let keptEventsName = ".removed-events"
    /// The longest file read back (a line is at most about 600 bytes).
    private static let maxKeptBytes = 4 << 20

    /// Adds the removed store `appID`'s `events` (newest first) to `uid`'s kept events, dropping
    /// those older than `keptDays` and the oldest past `maxKeptEvents`; written whole and renamed
    /// in place, so a crash leaves the old file or the new one.
    func keepEvents(_ events: [SecurityEventRecord], uid: uid_t, appID: AppID) throws(PasscodeError) {
        let folder: String
        do { folder = try userFolder(uid) } catch let e as PasscodeError { throw e } catch { throw PasscodeError.io("\(error)") }
        let path = "\(folder)/\(StoreRoot.keptEventsName)"
        let now = options.clock().wallMs
        let oldest = now - StoreRoot.keptDays * 86_400_000
        var lines = StoreRoot.readKept(path).filter { $0.event.wallMs >= oldest }
        lines += events.reversed().map { (appID.name, $0) }
        if lines.count > StoreRoot.maxKeptEvents { lines.removeFirst(lines.count - StoreRoot.maxKeptEvents) }
        var text = ""
        for (app, e) in lines {
            text += "\(app)\t\(e.kind.rawValue)\t\(e.wallMs)\t\(StoreRoot.escape(e.detail))\n"
        }
        try ServiceFile.replace(path, with: text, cannot: "the removed store's events cannot be kept", suffix: "; nothing was removed")
    }

    /// `uid`'s kept events of its removed stores of `appID`, newest first, none older than
    /// `keptDays`. Creates nothing (a query).
    func keptEvents(uid: uid_t, appID: AppID) -> [SecurityEventRecord] {
        var st = stat()
        guard lstat("\(root)/\(uid)", &st) == 0, let folder = try? userFolder(uid) else { return [] }
        let now = options.clock().wallMs
        let oldest = now - StoreRoot.keptDays * 86_400_000
        return StoreRoot.readKept("\(folder)/\(StoreRoot.keptEventsName)").reversed()
            .filter { $0.app == appID.name && $0.event.wallMs >= oldest }.map(\.event)
    }

    /// The file's events, oldest first; a line that does not parse is skipped.
    private static func readKept(_ path: String) -> [(app: String, event: SecurityEventRecord)] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size <= maxKeptBytes else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            if n <= 0 { break }
            got += n
        }
        return bytes[0..<got].split(separator: UInt8(ascii: "\n")).compactMap { line in
            let fields = line.split(separator: UInt8(ascii: "\t"), maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let raw = Int32(String(decoding: fields[1], as: UTF8.self)),
                  let kind = SecurityEvent(checked: raw), let wallMs = Int64(String(decoding: fields[2], as: UTF8.self)) else { return nil }
            return (String(decoding: fields[0], as: UTF8.self),
                    SecurityEventRecord(kind: kind, wallMs: wallMs, detail: unescape(String(decoding: fields[3], as: UTF8.self))))
        }
    }

    private static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(c)
            }
        }
        return out
    }

    private static func unescape(_ s: String) -> String {
        var out = ""
        var escaped = false
        for c in s {
            if escaped {
                switch c {
                case "t": out += "\t"
                case "n": out += "\n"
                case "r": out += "\r"
                default: out.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out
    }
}
