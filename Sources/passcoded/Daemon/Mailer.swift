// Reset codes by email: passcoded sends the code itself, through the relay root configured
// (passcoded.conf, smtp_*), to the store's recipient (SetResetRecipient). The code is made,
// hashed, counted and expired by the core (PasscodeStore.requestResetCode): the mail is the
// core's delivery callback, installed only for a ResetRequest call. The caller learns the masked
// address, never the code; no log line or reply holds the code or the full address.
import CPasscodeMail
import Glibc
import PasscodeCore

/// The relay's login: "user:password" on the first line of a root-only file.
struct SmtpLogin: @unchecked Sendable {
    let user: String
    let password: SecretBytes  // NUL-terminated

    /// Reads `path` as root: owned by root, no access for group or others, a regular file.
    static func read(path: String) throws(ConfigError) -> SmtpLogin {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw ConfigError("cannot open the SMTP login file \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw ConfigError("the SMTP login file \(path) is not a regular file") }
        guard st.st_uid == 0, st.st_mode & 0o077 == 0 else {
            throw ConfigError("the SMTP login file \(path) must be owned by root and readable by no one else (uid \(st.st_uid), mode 0\(String(st.st_mode & 0o7777, radix: 8)))")
        }
        let raw = SecretBytes(count: 1024)
        let n = raw.withMutableBytesForCaller { b in Glibc.read(fd, b.baseAddress, b.count) }
        guard n > 0, n < 1024 else { throw ConfigError("the SMTP login file \(path) is empty or over 1023 bytes") }
        // user:password up to the first line end.
        var colon = -1, end = n
        raw.withBytes { b in
            for i in 0..<n {
                if b[i] == 0x0a || b[i] == 0x0d { end = i; break }
                if colon < 0 && b[i] == 0x3a { colon = i }
            }
        }
        guard colon > 0 else { throw ConfigError("the SMTP login file \(path) must hold user:password") }
        let user = raw.withBytes { b in String(decoding: UnsafeRawBufferPointer(rebasing: b[0..<colon]), as: UTF8.self) }
        let password = SecretBytes(count: end - colon)  // the password and a NUL
        raw.withBytes { b in password.withMutableBytesForCaller { p in
            for i in (colon + 1)..<end { p[i - colon - 1] = b[i] }
            p[end - colon - 1] = 0
        } }
        return SmtpLogin(user: user, password: password)
    }
}

/// The relay, as configured; nil when passcoded.conf names none.
struct Mailer: Sendable {
    let host: String
    let port: UInt32
    let startTLS: Bool
    let login: SmtpLogin?
    let from: String
    let subject: String
    let template: String
    let timeoutSeconds: Int

    init?(config: ServiceConfig) {
        guard let host = config.smtpHost, let from = config.smtpFrom else { return nil }
        self.host = host
        port = config.smtpPort
        startTLS = config.smtpStartTLS
        login = config.smtpLogin
        self.from = from
        subject = config.smtpSubject
        template = config.smtpTemplate
        timeoutSeconds = config.smtpTimeoutSeconds
    }

    /// An address passcoded will write to: local@domain, printable ASCII, no spaces, no angle
    /// brackets, commas or line breaks (nothing a header or an SMTP command could be split by).
    static func isAddress(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard bytes.count >= 3, bytes.count <= 254 else { return false }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f && !"<>(),;:\\\"[]".utf8.contains($0) }) else { return false }
        guard let at = bytes.lastIndex(of: 0x40), at > 0, at < bytes.count - 1 else { return false }
        return bytes.filter({ $0 == 0x40 }).count == 1 && !bytes[(at + 1)...].contains(0x40)
    }

    /// The host is a loopback address (no STARTTLS needed there).
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// "j***@example.org": the first character of the local part, and the domain.
    static func mask(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@"), let first = address.first else { return "***" }
        return "\(first)***\(address[at...])"
    }

    /// The message: headers and the body with the code and its lifetime (CRLF line ends).
    func message(to: String, code: SecretBytes, minutes: Int64) -> SecretBytes {
        var body = template.replacingAll("\\n", with: "\r\n").replacingAll("{minutes}", with: String(minutes))
        var date = [CChar](repeating: 0, count: 64)
        var now = time(nil), tmv = tm()
        gmtime_r(&now, &tmv)
        let dn = strftime(&date, date.count, "%a, %d %b %Y %H:%M:%S +0000", &tmv)
        let head = "From: \(from)\r\nTo: \(to)\r\nSubject: \(subject)\r\nDate: \(String(decoding: date[0..<dn].map { UInt8(bitPattern: $0) }, as: UTF8.self))\r\n"
            + "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        // The code is put in only in the wiped buffer, never in a String.
        var parts: [[UInt8]] = []
        var rest = Substring(body)
        while let r = rest.firstRange(of: "{code}") {
            parts.append(Array(rest[..<r.lowerBound].utf8))
            rest = rest[r.upperBound...]
        }
        parts.append(Array(rest.utf8))
        body = ""
        let total = head.utf8.count + parts.reduce(0) { $0 + $1.count } + (parts.count - 1) * code.count + 2
        let out = SecretBytes(count: total)
        out.withMutableBytesForCaller { o in
            var i = 0
            for b in head.utf8 { o[i] = b; i += 1 }
            for (n, part) in parts.enumerated() {
                if n > 0 { code.withBytes { c in for b in c { o[i] = b; i += 1 } } }
                for b in part { o[i] = b; i += 1 }
            }
            o[i] = 0x0d; o[i + 1] = 0x0a
        }
        return out
    }

    /// The confirmation of a new recipient: its code, and what it is for (fixed text: the
    /// address's owner did not ask for it, and learns who did only as "passcoded on <host>").
    func confirmationMessage(to: String, code: SecretBytes) -> SecretBytes {
        let hours = PasscodeStore.recipientCodeLifetimeMs / 3_600_000
        let text = Mailer(copying: self, subject: "Confirm this address for passcode reset codes",
                          template: "Someone with the passcode of an app on this computer asked to send its passcode reset codes to this address.\\n\\n"
                              + "To allow it, enter this confirmation code in the app: {code}\\n\\nIt expires in \(hours) hours. "
                              + "If you did not ask for this, ignore this mail: nothing will be sent to you.\\n")
        return text.message(to: to, code: code, minutes: 0)
    }

    private init(copying other: Mailer, subject: String, template: String) {
        host = other.host
        port = other.port
        startTLS = other.startTLS
        login = other.login
        from = other.from
        self.subject = subject
        self.template = template
        timeoutSeconds = other.timeoutSeconds
    }

    /// Sends a new recipient its confirmation code; nil when the relay took it, or why not.
    func send(confirmation code: SecretBytes, to: String) -> String? {
        deliver(confirmationMessage(to: to, code: code), to: to)
    }

    /// Sends the code to `to`; nil when the relay took it, or why not (never the code).
    func send(code: SecretBytes, to: String, minutes: Int64) -> String? {
        deliver(message(to: to, code: code, minutes: minutes), to: to)
    }

    private func deliver(_ text: SecretBytes, to: String) -> String? {
        var error = [CChar](repeating: 0, count: 512)
        let rc: Int32 = host.withCString { h in
            guard let login else { return perform(h, nil, nil, text, to, &error) }
            return login.user.withCString { u in
                login.password.withBytes { p in perform(h, u, p.baseAddress?.assumingMemoryBound(to: CChar.self), text, to, &error) }
            }
        }
        if rc == 0 { return nil }
        let reason = String(decoding: error.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "the mail relay \(host):\(port) did not take the message (\(reason))"
    }

    private func perform(_ h: UnsafePointer<CChar>, _ u: UnsafePointer<CChar>?, _ pw: UnsafePointer<CChar>?,
                         _ text: SecretBytes, _ to: String, _ error: inout [CChar]) -> Int32 {
        var relay = passcode_mail_relay(host: h, port: port, require_tls: startTLS ? 1 : 0, user: u, password: pw,
                                        timeout_seconds: timeoutSeconds)
        return from.withCString { f in to.withCString { t in text.withBytes { b in
            error.withUnsafeMutableBufferPointer { e in
                passcode_mail_send(&relay, f, t, b.baseAddress?.assumingMemoryBound(to: CChar.self), b.count, e.baseAddress, e.count)
            }
        } } }
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        var out = "", rest = Substring(self)
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
