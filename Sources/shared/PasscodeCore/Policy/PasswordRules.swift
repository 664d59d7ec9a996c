// What an account password must be (`passcode_password_change_check`): pure rules.

public enum PasswordRules {
    public static let minimumLength = 8
    public static let maximumLength = 256

    /// Code points in valid UTF-8, or nil for invalid UTF-8 (checked without making a String).
    static func codePoints(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0, count = 0
        while i < bytes.count {
            let b = bytes[i]
            let n: Int
            switch b {
            case 0x00...0x7f: n = 1
            case 0xc2...0xdf: n = 2
            case 0xe0...0xef: n = 3
            case 0xf0...0xf4: n = 4
            default: return nil
            }
            guard i + n <= bytes.count else { return nil }
            for k in 1..<max(n, 1) where bytes[i + k] & 0xc0 != 0x80 { return nil }
            if n == 3 {
                let v = (Int(b & 0x0f) << 12) | (Int(bytes[i + 1] & 0x3f) << 6)
                if v < 0x800 || (0xd800...0xdfff).contains(v | Int(bytes[i + 2] & 0x3f)) { return nil }
            }
            if n == 4 {
                let v = (Int(b & 0x07) << 18) | (Int(bytes[i + 1] & 0x3f) << 12)
                if v < 0x10000 || v > 0x10ffff { return nil }
            }
            if b == 0 { return nil }  // an embedded NUL is not part of a password
            i += n
            count += 1
        }
        return count
    }
}
