// Time that cannot be cheated: a boot-time clock plus the boot id, with the wall clock only
// for display. The host may supply its own source (tests, embedded hosts).
import CPasscodeShims

/// One reading of every clock libpasscode uses.
public struct ClockReading: Sendable, Equatable {
    /// Milliseconds on a clock that never follows the wall clock (CLOCK_BOOTTIME).
    public var bootMs: Int64
    /// Milliseconds since the Unix epoch, for display only (last password change).
    public var wallMs: Int64
    /// Changes when the machine reboots; a pending lockout then starts again in full.
    public var bootID: UInt64

    public init(bootMs: Int64, wallMs: Int64, bootID: UInt64) {
        self.bootMs = bootMs
        self.wallMs = wallMs
        self.bootID = bootID
    }
}

extension ClockReading {
    /// The boot clock readings libpasscode accepts: 0 to 2^61 - 1 ms (73 million years). Every
    /// stored time is in this range too, so a sum or difference of two never overflows.
    public static let bootRange: ClosedRange<Int64> = 0...maxClockMs
    /// The wall clock readings it accepts: -(2^61 - 1) to 2^61 - 1 ms around 1970.
    public static let wallRange: ClosedRange<Int64> = -maxClockMs...maxClockMs

    /// The reading, when both clocks are in range; else `clockOutOfRange`, naming the clock.
    func checked() throws(PasscodeError) -> ClockReading {
        guard ClockReading.bootRange.contains(bootMs) else {
            throw PasscodeError.clockOutOfRange("the host's boot clock read \(bootMs) ms; libpasscode accepts 0 to \(maxClockMs)")
        }
        guard ClockReading.wallRange.contains(wallMs) else {
            throw PasscodeError.clockOutOfRange("the host's wall clock read \(wallMs) ms; libpasscode accepts \(-maxClockMs) to \(maxClockMs)")
        }
        return self
    }
}

public typealias ClockSource = @Sendable () -> ClockReading

public enum SystemClock {
    private static let bootID: UInt64 = readBootID()

    /// Reads CLOCK_BOOTTIME, CLOCK_REALTIME and the kernel's boot id.
    public static func read() -> ClockReading {
        ClockReading(bootMs: milliseconds(CLOCK_BOOTTIME), wallMs: milliseconds(CLOCK_REALTIME),
                     bootID: bootID)
    }

    private static func milliseconds(_ id: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// The first 64 bits of /proc/sys/kernel/random/boot_id (a UUID), or 0 when unreadable.
    private static func readBootID() -> UInt64 {
        guard let f = fopen("/proc/sys/kernel/random/boot_id", "r") else { return 0 }
        defer { fclose(f) }
        var value: UInt64 = 0
        var digits = 0
        while digits < 16 {
            let c = fgetc(f)
            if c == EOF { break }
            let v: Int32
            switch c {
            case 48...57: v = c - 48
            case 97...102: v = c - 87
            case 65...70: v = c - 55
            default: continue
            }
            value = value << 4 | UInt64(v)
            digits += 1
        }
        return value
    }
}
