// passcoded's configuration: a root-owned file no one else can write, read while still root.
import Glibc
import PasscodeCore

/// What the administrator (or a test, as root) sets; nothing of it comes from a caller.
struct ServiceConfig {
    /// Where the stores live: `<storeRoot>/<uid>/<app_id>.db`.
    var storeRoot = "/var/lib/passcode"
    /// The system user the daemon runs as after it has opened the bus.
    var user = "passcode"
    /// Argon2id cost for new hashes (tests lower it).
    var cost = HashCost.interactive
    /// A root-owned file holding the time added to the system clock (tests of the lockout
    /// schedule): whole seconds ("90"), or milliseconds with an "ms" suffix ("90500ms");
    /// nil: the system clock as it is.
    var clockOffsetFile: String?
    /// The most stores one uid may have (each new app id makes a file in the service's folder:
    /// a caller inventing app ids must not fill its disk). Tests that make many stores raise it.
    var maxStoresPerUID = 32
    /// `fprint_timeout`: how long a fingerprint check (FingerprintUnlock) waits for fprintd's
    /// VerifyStatus, in seconds (1 to 300) before it answers that no finger was read.
    var fprintTimeout = 30
    /// `fprint_checks_per_minute`: how many times one uid may have the reader claimed in any 60
    /// seconds (1 to 60); past it a check is refused as rate-limited, nothing claimed or counted.
    var fprintChecksPerMinute = 6
    // The TPM (passcode-tpm(7), passcoded(8) "The TPM"): one contiguous block.
    /// `tpm`: the TCTI of the TPM passcoded binds its stores to ("device:/dev/tpmrm0",
    /// "swtpm:host=127.0.0.1,port=2321"); nil: no TPM, and tpm2-tss is never loaded.
    var tpm: String?
    /// `tpm_owner_auth_file`: the provisioned TPM's owner authorization (a root-only file of 64
    /// hex digits, scripts/tpm-provision.sh), read as root before the drop. Unset: the library's
    /// default file, when it exists; set: it must exist.
    var tpmOwnerAuthFile: String?
    // Reset codes by email (passcoded(8) "Reset codes by email"): one contiguous block.
    /// `smtp_host`, `smtp_port`: the relay passcoded sends reset codes through; nil: none, and
    /// a request answers PASSCODE_ERR_RESET_DELIVERY_UNAVAILABLE.
    var smtpHost: String?
    var smtpPort: UInt32 = 587
    /// `smtp_starttls`: required unless the host is a loopback address (127.0.0.0/8, ::1,
    /// localhost), where `smtp_starttls = no` is allowed.
    var smtpStartTLS = true
    /// `smtp_login_file`: "user:password" on its first line, a root-only file (mode 0600 or
    /// 0400, owned by root), read as root before the drop; nil: no login.
    var smtpLoginFile: String?
    /// The login read from it (kept in a wiped buffer).
    var smtpLogin: SmtpLogin?
    /// `smtp_from`: the sender address.
    var smtpFrom: String?
    /// `smtp_subject` and `smtp_template`: the message; {code} and {minutes} are replaced
    /// (the template must hold {code}; "\\n" is a line break).
    var smtpSubject = "Your passcode reset code"
    var smtpTemplate = "Your reset code is {code}. It expires in {minutes} minutes.\\nIf you did not ask for it, ignore this message."
    /// `smtp_timeout`: seconds a send may take, connect included (1 to 60).
    var smtpTimeoutSeconds = 20
    /// `mail_per_uid_hour`, `mail_per_uid_day`: the confirmation mails (to addresses not yet
    /// confirmed) passcoded sends for one uid, over all its stores and kept across their removal;
    /// `mail_per_recipient_day`: every mail for one uid to one mailbox (codes and confirmations).
    /// Root's alone: no store's setting lowers or raises them (MailLedger).
    var mailPerUIDHour = 6
    var mailPerUIDDay = 12
    var mailPerRecipientDay = 6

    /// `greeter_users`: the accounts, besides root and the user itself, that read a user's login
    /// store's lock state (WatchLogin): a display manager's greeter (Debian-gdm, lightdm, sddm).
    /// Names separated by spaces or commas; none by default.
    var greeterUsers: [String] = []

    static let defaultPath = "/etc/passcode/passcoded.conf"

    /// Reads `path`. A missing default file means the defaults; a file that is not root's, or
    /// that group or others may write (or a folder above it that they may write), is refused.
    static func load(path: String, required: Bool) throws(ConfigError) -> ServiceConfig {
        var config = ServiceConfig()
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT && !required { return config }
            throw ConfigError("cannot open the configuration \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        try RootOwned.check(fd: fd, path: path, what: "the configuration")
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { throw ConfigError("cannot read the configuration \(path)") }
            if n == 0 { break }
            bytes += buffer[0..<n]
            if bytes.count > 65536 { throw ConfigError("the configuration \(path) is over 64 KiB") }
        }
        var opsLimit: UInt64?, memLimit: Int?
        for (number, raw) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let text = trimmed(line)
            if text.isEmpty { continue }
            guard let eq = text.firstIndex(of: "=") else { throw ConfigError("\(path):\(number + 1): expected key = value") }
            let key = trimmed(text[..<eq]), value = trimmed(text[text.index(after: eq)...])
            switch key {
            case "store_root":
                guard value.hasPrefix("/"), !value.split(separator: "/").contains("..") else {
                    throw ConfigError("\(path):\(number + 1): store_root must be an absolute path without '..'")
                }
                config.storeRoot = value
            case "user":
                guard !value.isEmpty else { throw ConfigError("\(path):\(number + 1): user is empty") }
                config.user = value
            case "argon2_ops":
                guard let v = UInt64(value) else { throw ConfigError("\(path):\(number + 1): argon2_ops is not a number") }
                opsLimit = v
            case "argon2_mem":
                guard let v = Int(value) else { throw ConfigError("\(path):\(number + 1): argon2_mem is not a number") }
                memLimit = v
            case "clock_offset_file":
                guard value.hasPrefix("/") else { throw ConfigError("\(path):\(number + 1): clock_offset_file must be absolute") }
                config.clockOffsetFile = value
            case "tpm":
                guard !value.isEmpty, value.utf8.count < 1024 else { throw ConfigError("\(path):\(number + 1): tpm must be a TCTI string of 1 to 1023 bytes") }
                config.tpm = value
            case "tpm_owner_auth_file":
                guard value.hasPrefix("/"), value.utf8.count < 4096 else { throw ConfigError("\(path):\(number + 1): tpm_owner_auth_file must be an absolute path") }
                config.tpmOwnerAuthFile = value
            case "smtp_host":
                guard !value.isEmpty, value.utf8.count < 256, value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != 0x2f && $0 != 0x40 }) else {
                    throw ConfigError("\(path):\(number + 1): smtp_host must be a host name or address")
                }
                config.smtpHost = value
            case "smtp_port":
                guard let v = UInt32(value), v >= 1, v <= 65535 else { throw ConfigError("\(path):\(number + 1): smtp_port must be 1 to 65535") }
                config.smtpPort = v
            case "smtp_starttls":
                guard value == "yes" || value == "no" else { throw ConfigError("\(path):\(number + 1): smtp_starttls must be yes or no") }
                config.smtpStartTLS = value == "yes"
            case "smtp_login_file":
                guard value.hasPrefix("/"), value.utf8.count < 4096 else { throw ConfigError("\(path):\(number + 1): smtp_login_file must be an absolute path") }
                config.smtpLoginFile = value
            case "smtp_from":
                guard Mailer.isAddress(value) else { throw ConfigError("\(path):\(number + 1): smtp_from must be an address (name@domain)") }
                config.smtpFrom = value
            case "smtp_subject":
                guard value.utf8.count <= 200, value.utf8.allSatisfy({ $0 >= 0x20 }) else { throw ConfigError("\(path):\(number + 1): smtp_subject must be one line of at most 200 bytes") }
                config.smtpSubject = value
            case "smtp_template":
                guard value.contains("{code}"), value.utf8.count <= 2000 else { throw ConfigError("\(path):\(number + 1): smtp_template must hold {code} (at most 2000 bytes)") }
                config.smtpTemplate = value
            case "smtp_timeout":
                guard let v = Int(value), v >= 1, v <= 60 else { throw ConfigError("\(path):\(number + 1): smtp_timeout must be 1 to 60 seconds") }
                config.smtpTimeoutSeconds = v
            case "mail_per_uid_hour", "mail_per_uid_day", "mail_per_recipient_day":
                guard let v = Int(value), (0...1000).contains(v) else { throw ConfigError("\(path):\(number + 1): \(key) must be a number of mails from 0 to 1000") }
                if key == "mail_per_uid_hour" { config.mailPerUIDHour = v } else if key == "mail_per_uid_day" { config.mailPerUIDDay = v } else { config.mailPerRecipientDay = v }
            case "max_stores_per_uid":
                guard let v = Int(value), v >= 1 else { throw ConfigError("\(path):\(number + 1): max_stores_per_uid is not a number of at least 1") }
                config.maxStoresPerUID = v
            case "fprint_timeout":
                guard let v = Int(value), (1...300).contains(v) else { throw ConfigError("\(path):\(number + 1): fprint_timeout is not a number of seconds from 1 to 300") }
                config.fprintTimeout = v
            case "fprint_checks_per_minute":
                guard let v = Int(value), (1...60).contains(v) else { throw ConfigError("\(path):\(number + 1): fprint_checks_per_minute is not a number from 1 to 60") }
                config.fprintChecksPerMinute = v
            case "greeter_users":
                let names = value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
                guard names.count <= 16, names.allSatisfy({ n in
                    !n.isEmpty && n.utf8.count <= 32 && n.utf8.first != UInt8(ascii: "-")
                        && n.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }
                }) else {
                    throw ConfigError("\(path):\(number + 1): greeter_users must be at most 16 account names, separated by spaces or commas")
                }
                config.greeterUsers = names
            default:
                throw ConfigError("\(path):\(number + 1): unknown key \(key)")
            }
        }
        if config.tpmOwnerAuthFile != nil && config.tpm == nil {
            throw ConfigError("\(path): tpm_owner_auth_file needs tpm (the TPM it is the owner authorization of)")
        }
        if let host = config.smtpHost {
            guard config.smtpFrom != nil else { throw ConfigError("\(path): smtp_host needs smtp_from (the sender)") }
            if !config.smtpStartTLS && !Mailer.isLoopback(host) {
                throw ConfigError("\(path): smtp_starttls = no is allowed only for a relay on loopback (\(host) is not)")
            }
            // Without STARTTLS nothing proves the listener is the relay: any local user who binds
            // its port while the relay is down would receive every store's reset codes.
            if !config.smtpStartTLS && config.smtpPort >= ServiceConfig.unprivilegedPortStart() {
                throw ConfigError("\(path): smtp_starttls = no needs a relay on a privileged port (below \(ServiceConfig.unprivilegedPortStart()), net.ipv4.ip_unprivileged_port_start): any user may bind port \(config.smtpPort) and receive the reset codes")
            }
            if let file = config.smtpLoginFile { config.smtpLogin = try SmtpLogin.read(path: file) }
        } else if config.smtpFrom != nil || config.smtpLoginFile != nil {
            throw ConfigError("\(path): smtp_from and smtp_login_file need smtp_host (the relay)")
        }
        if opsLimit != nil || memLimit != nil {
            config.cost = HashCost(opsLimit: opsLimit ?? config.cost.opsLimit, memLimit: memLimit ?? config.cost.memLimit)
            guard config.cost.isValid else { throw ConfigError("\(path): the Argon2id cost is outside libsodium's limits") }
        }
        return config
    }

    private static func trimmed<S: StringProtocol>(_ s: S) -> String {
        var chars = Substring(s)
        while let c = chars.first, c == " " || c == "\t" || c == "\r" { chars.removeFirst() }
        while let c = chars.last, c == " " || c == "\t" || c == "\r" { chars.removeLast() }
        return String(chars)
    }
}

struct ConfigError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Files only root may have written: the configuration and the test clock.
enum RootOwned {
    /// `fd` must be a regular file owned by root that group and others cannot write, in
    /// folders (up to /) owned by root that no one else can write (a root-owned sticky folder
    /// such as /tmp excepted: no one else may rename an entry there).
    static func check(fd: Int32, path: String, what: String) throws(ConfigError) {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw ConfigError("\(what) \(path) is not a regular file")
        }
        guard st.st_uid == 0, st.st_mode & 0o022 == 0 else {
            throw ConfigError("\(what) \(path) must be owned by root and writable by no one else (uid \(st.st_uid), mode 0\(String(st.st_mode & 0o7777, radix: 8)))")
        }
        guard let resolved = realpath(path, nil) else { throw ConfigError("\(what) \(path) cannot be resolved") }
        var folder = String(cString: resolved)
        free(resolved)
        while folder != "/" {
            if let slash = folder.lastIndex(of: "/") { folder = slash == folder.startIndex ? "/" : String(folder[..<slash]) }
            var fst = stat()
            guard stat(folder, &fst) == 0 else { throw ConfigError("the folder \(folder) above \(what) cannot be read") }
            let sticky = fst.st_mode & 0o1000 != 0
            guard fst.st_uid == 0, fst.st_mode & 0o022 == 0 || sticky else {
                throw ConfigError("the folder \(folder) above \(what) \(path) may be written by others than root; refusing it")
            }
        }
    }
}

extension ServiceConfig {
    /// The first port an unprivileged user may bind (net.ipv4.ip_unprivileged_port_start; 1024
    /// when it cannot be read), read while passcoded is still root.
    static func unprivilegedPortStart() -> UInt32 {
        let fd = open("/proc/sys/net/ipv4/ip_unprivileged_port_start", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 1024 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, let v = UInt32(String(decoding: buffer[0..<n].filter { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self)) else { return 1024 }
        return min(v, 1024)
    }
}
