// Which process reported the app's trip to the background, so that a report from another
// process does not end it (LockState.cameToForeground).
import CPasscodeShims

/// A process that reports an app event: its pid and its start time (clock ticks after boot,
/// /proc/PID/stat's field 22), so a pid used again by a later process is not taken for it.
public struct ReportingProcess: Equatable, Sendable {
    public let pid: Int64
    /// 0 when unknown (the process was gone when it was read): such a process counts as gone.
    public let start: Int64

    /// The process `pid` as it runs now (passcoded: the caller's pid from the bus, read at once).
    public init(pid: Int64) {
        self.pid = pid
        start = pid > 0 ? ProcessIdentity.startTime(pid) ?? 0 : 0
    }

    init(pid: Int64, start: Int64) {
        self.pid = pid
        self.start = start
    }
}

enum ProcessIdentity {
    /// This process. Read on every call, not cached: a child made by fork() is another process.
    static var current: ReportingProcess { ReportingProcess(pid: Int64(getpid())) }

    /// Whether the process `pid` that started at `start` still runs. Unknown (0) counts as gone.
    static func isAlive(pid: Int64, start: Int64) -> Bool {
        guard pid > 0, let now = startTime(pid) else { return false }
        return now == start
    }

    /// Field 22 of /proc/PID/stat, after the command name (which may hold spaces and parentheses).
    static func startTime(_ pid: Int64) -> Int64? {
        let fd = shim_open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, let close = bytes[0..<n].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)..<n].split(separator: UInt8(ascii: " "))
        // fields[0] is field 3 (the state); field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return Int64(String(decoding: fields[19], as: UTF8.self))
    }
}
