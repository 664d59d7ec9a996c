// Which passcodes are too easy to guess. Pure functions of the digit values (0-9).

public enum PasscodePolicy {
    /// Shortest and longest passcode a store accepts; 6 is the default.
    public static let minLength = 4
    public static let maxLength = 12
    public static let defaultLength = 6

    /// Android's `MAX_ALLOWED_SEQUENCE` is 3: a run of 4 or more repeated or constant-step digits
    /// (1111, 1234, 4321, 2468) makes a PIN of medium complexity fail.
    static let longestAllowedRun = 3

    /// Why `digits` is too easy to guess, or nil when it is acceptable. The reason never
    /// repeats the digits.
    public static func weakness(_ digits: [UInt8]) -> String? {
        if longestConstantStepRun(digits) > longestAllowedRun {
            return "it has 4 digits in a row that repeat or climb or fall evenly"
        }
        if digits.count == 6 {
            if let why = commonSixDigitPattern(digits) { return why }
        }
        return nil
    }

    /// Length of the longest run in which each digit differs from the one before by the same
    /// step (0 for repeats).
    static func longestConstantStepRun(_ d: [UInt8]) -> Int {
        guard d.count > 1 else { return d.count }
        var best = 2, run = 2
        var step = Int(d[1]) - Int(d[0])
        for i in 2..<d.count {
            let s = Int(d[i]) - Int(d[i - 1])
            if s == step { run += 1 } else { run = 2; step = s }
            best = max(best, run)
        }
        return best
    }

    /// The built-in list of the most common six-digit choices, as rules: dates, repeated
    /// halves and pairs, mirrored halves, and keypad and well-known patterns. Together they
    /// cover about a tenth of the space, the balance Markert et al. (IEEE S&P 2020) recommend.
    static func commonSixDigitPattern(_ d: [UInt8]) -> String? {
        let n = d.reduce(0) { $0 * 10 + Int($1) }
        if commonSixDigitCodes.contains(n) { return "it is one of the most commonly chosen passcodes" }
        if d[0] == d[3] && d[1] == d[4] && d[2] == d[5] { return "it repeats a three-digit group" }
        if d[0] == d[2] && d[2] == d[4] && d[1] == d[3] && d[3] == d[5] { return "it repeats a two-digit pair" }
        if d[0] == d[1] && d[2] == d[3] && d[4] == d[5] { return "it is made of three doubled digits" }
        if d[0] == d[5] && d[1] == d[4] && d[2] == d[3] { return "its second half mirrors the first" }
        let a = Int(d[0]) * 10 + Int(d[1]), b = Int(d[2]) * 10 + Int(d[3]), c = Int(d[4]) * 10 + Int(d[5])
        if isDayMonth(day: a, month: b) || isDayMonth(day: b, month: a) || isDayMonth(day: c, month: b) {
            return "it looks like a date"
        }
        return nil
    }

    private static func isDayMonth(day: Int, month: Int) -> Bool {
        let days = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return month >= 1 && month <= 12 && day >= 1 && day <= days[month]
    }

    /// Keypad shapes and other top choices from published six-digit PIN studies that the rules
    /// above do not already catch.
    static let commonSixDigitCodes: Set<Int> = [
        159753, 147258, 258369, 147852, 741852, 852963, 963852, 789456, 456123, 321654,
        159357, 357159, 951753, 753951, 124578, 142536, 102030, 112358, 314159, 271828,
        520520, 520131, 131420, 246810, 135790, 147369, 159951, 357951, 258258, 741963,
        369258, 987456, 654789, 123654, 456321, 789123, 321789, 147896, 963214, 852741,
    ]
}
