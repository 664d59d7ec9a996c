// How long a passcode stays locked out after n failed attempts. Pure values.

/// What the n-th consecutive failure leads to.
public enum LockoutStep: Equatable, Sendable {
    /// No delay: the next attempt may come at once.
    case none
    /// The next attempt must wait this many seconds.
    case delay(seconds: Int64)
    /// The maximum number of failures: the store's maximum-failure action applies.
    case maximum
}

public enum LockoutSchedule: Equatable, Sendable {
    /// Apple's iOS table: 1-4 none, 5: 1 min, 6: 5 min, 7-8: 15 min, 9: 1 h, 10: maximum.
    case apple
    /// Android 16's table: 5: 1 min, 6: 5 min, 7: 15 min, 8: 30 min, 9: 90 min,
    /// 10-19: 3^(n-5) min, 20: maximum (no more attempts).
    case android
    /// A host's table: `delays[i]` seconds after failure i+1 (the last entry repeats), and the
    /// maximum at `maxFailures` (0: never).
    case custom(delays: [Int64], maxFailures: Int)

    /// The step after `failures` consecutive failures (1 = the first).
    public func step(afterFailures failures: Int) -> LockoutStep {
        guard failures > 0 else { return .none }
        switch self {
        case .apple:
            switch failures {
            case 1...4: return .none
            case 5: return .delay(seconds: 60)
            case 6: return .delay(seconds: 300)
            case 7, 8: return .delay(seconds: 900)
            case 9: return .delay(seconds: 3600)
            default: return .maximum
            }
        case .android:
            switch failures {
            case 1...4: return .none
            case 5: return .delay(seconds: 60)
            case 6: return .delay(seconds: 300)
            case 7: return .delay(seconds: 900)
            case 8: return .delay(seconds: 1800)
            case 9: return .delay(seconds: 5400)
            case 10...19:
                var minutes: Int64 = 1
                for _ in 0..<(failures - 5) { minutes *= 3 }
                return .delay(seconds: minutes * 60)
            default: return .maximum
            }
        case .custom(let delays, let maxFailures):
            if maxFailures > 0 && failures >= maxFailures { return .maximum }
            guard let last = delays.last else { return .none }
            let d = failures <= delays.count ? delays[failures - 1] : last
            return d > 0 ? .delay(seconds: d) : .none
        }
    }

    /// The next failure after `failures` that leads to a delay or to the maximum: how many more
    /// failures reach it (1: the next one) and its step; nil when no further failure does (a
    /// custom table without delays and without a maximum). What a login screen says as "3 wrong
    /// answers left before a 5-minute wait".
    public func nextStep(afterFailures failures: Int) -> (failuresLeft: Int, step: LockoutStep)? {
        let from = max(0, failures)
        // Every schedule reaches its last row within this many failures: past a custom table's
        // rows its last delay repeats, and past its maximum (at most 10,000) the maximum does.
        var limit = 20
        if case .custom(let delays, let maxFailures) = self { limit = max(delays.count, maxFailures) + 1 }
        var n = from + 1
        while n <= from + limit {
            let step = self.step(afterFailures: n)
            if step != .none { return (n - from, step) }
            n += 1
        }
        return nil
    }

    /// The failures at which the schedule reaches its maximum (the policy's guess limit), nil
    /// when it never does. A provisioned TPM's PIN_FAIL index gets it as its pinLimit.
    public var guessLimit: Int? {
        switch self {
        case .apple: return 10
        case .android: return 20
        case .custom(_, let maxFailures): return maxFailures > 0 ? maxFailures : nil
        }
    }

    /// The delay the schedule falls back to when the maximum action is `.none`: the longest delay.
    public var longestDelay: Int64 {
        switch self {
        case .apple: return 3600
        case .android: return LockoutSchedule.androidLongestDelay
        case .custom(let delays, _): return delays.max() ?? 0
        }
    }

    /// Android's last delay: 3^14 minutes, after failure 19.
    static let androidLongestDelay: Int64 = 4_782_969 * 60

    /// No schedule, built in or custom, has a longer delay (custom delays are at most 366 days).
    static let longestPossibleDelaySeconds: Int64 = max(androidLongestDelay, 366 * 86400)
}
