// The mails passcoded sent for each uid (reset codes and address confirmations), so that root's
// limits (passcoded.conf mail_per_uid_hour, mail_per_uid_day, mail_per_recipient_day) hold
// whatever the user does: no store's setting changes them, and removing a store (which starts
// its own request limits anew) gives nothing back. A mail is counted, durably, before it is
// sent: a crash or a kill never gives one back. One uid's mail never counts against another's.
//
// The uid's limits count the confirmations (mail to an address no one has confirmed: what a
// relay abuser sends); the recipient's limit counts every mail of the uid to one address (its
// local part compared without case and without a "+tag"). A reset code goes only to a confirmed
// address, and counts against that address alone: another process of the same user that spends
// the uid's confirmations on addresses of its own leaves the user's reset codes going.
//
// `<root>/<uid>/.mail-ledger` (0600, the service's; not a store: it does not end in .db): a line
// a mail of the last day, "<unix seconds> <c|r> <address>" (c: a confirmation, r: a reset code),
// written whole to a new file renamed over the old one. An unreadable or damaged ledger counts as full (no mail) until a day has passed
// since its last change: damage never lifts a limit.
import Glibc
import PasscodeCore

final class MailLedger: @unchecked Sendable {
    nonisolated(unsafe) static var shared = MailLedger(stores: nil, perUIDHour: 6, perUIDDay: 12, perRecipientDay: 6)

    private let stores: StoreRoot?
    let perUIDHour: Int, perUIDDay: Int, perRecipientDay: Int
    private let lock = Mutex()
    private static let day: Int64 = 86_400, hour: Int64 = 3_600

    init(stores: StoreRoot?, perUIDHour: Int, perUIDDay: Int, perRecipientDay: Int) {
        self.stores = stores
        self.perUIDHour = perUIDHour
        self.perUIDDay = perUIDDay
        self.perRecipientDay = perRecipientDay
    }

    private struct Entry {
        let seconds: Int64
        let confirmation: Bool
        let address: String
    }

    /// The mailbox an address names, for the recipient's limit: lower case, without a "+tag".
    static func mailbox(_ address: String) -> String {
        let lower = address.lowercased()
        guard let at = lower.lastIndex(of: "@") else { return lower }
        let local = lower[..<at], domain = lower[at...]
        return String(local.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false).first ?? local) + domain
    }

    private func path(_ uid: uid_t) throws -> String? {
        guard let stores else { return nil }
        return "\(try stores.userFolder(uid))/.mail-ledger"
    }

    /// The uid's mails of the last day; nil: the ledger is damaged or unreadable (and when it changed).
    private func load(_ path: String, now: Int64) -> ([Entry]?, changed: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 { return (errno == ENOENT ? [] : nil, now) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size <= 1 << 20 else { return (nil, now) }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { return (nil, Int64(st.st_mtim.tv_sec)) }
        var entries: [Entry] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let t = Int64(parts[0]), t <= now + 60, parts[1] == "c" || parts[1] == "r",
                  Mailer.isAddress(String(parts[2])) else {
                return (nil, Int64(st.st_mtim.tv_sec))
            }
            if t > now - MailLedger.day { entries.append(Entry(seconds: t, confirmation: parts[1] == "c", address: String(parts[2]))) }
        }
        return (entries, Int64(st.st_mtim.tv_sec))
    }

    /// Seconds until one more mail for `uid` to `to` is allowed (0: now), by the entries given.
    private func wait(_ entries: [Entry], to: String, confirmation: Bool, now: Int64) -> Int64 {
        func until(_ list: [Entry], limit: Int, window: Int64) -> Int64 {
            guard list.count >= limit else { return 0 }
            guard limit > 0 else { return window }
            // The oldest of the newest `limit` must leave the window.
            let sorted = list.map { $0.seconds }.sorted()
            return max(1, sorted[sorted.count - limit] + window - now)
        }
        let box = MailLedger.mailbox(to)
        let recipient = until(entries.filter { MailLedger.mailbox($0.address) == box }, limit: perRecipientDay, window: MailLedger.day)
        guard confirmation else { return recipient }
        let confirmations = entries.filter { $0.confirmation }
        return max(recipient, until(confirmations.filter { $0.seconds > now - MailLedger.hour }, limit: perUIDHour, window: MailLedger.hour),
                   until(confirmations, limit: perUIDDay, window: MailLedger.day))
    }

    /// Seconds until `uid` may send one more mail to `to` (0: now), without counting one;
    /// `confirmation`: a confirmation code (the uid's limits count it too), else a reset code.
    func waitSeconds(uid: uid_t, to: String, confirmation: Bool) throws -> Int64 {
        guard let path = try path(uid) else { return 0 }
        let now = Int64(time(nil))
        return lock.withLock {
            let (entries, changed) = load(path, now: now)
            guard let entries else { return max(1, changed + MailLedger.day - now) }
            return wait(entries, to: to, confirmation: confirmation, now: now)
        }
    }

    /// Counts one mail for `uid` to `to` in the ledger, durably, or refuses it (`rateLimited`,
    /// with the seconds until one is allowed) when root's limits are reached.
    func admit(uid: uid_t, to: String, confirmation: Bool) throws {
        guard let path = try path(uid) else { return }
        let now = Int64(time(nil))
        let refusal: Int64 = try lock.withLock {
            let (loaded, changed) = load(path, now: now)
            guard let entries = loaded else { return max(1, changed + MailLedger.day - now) }
            let wait = wait(entries, to: to, confirmation: confirmation, now: now)
            if wait > 0 { return wait }
            let text = (entries + [Entry(seconds: now, confirmation: confirmation, address: to)])
                .map { "\($0.seconds) \($0.confirmation ? "c" : "r") \($0.address)\n" }.joined()
            try ServiceFile.replace(path, with: text, cannot: "the mail ledger cannot be written")
            return 0
        }
        if refusal > 0 { throw PasscodeError.rateLimited(seconds: refusal) }
    }
}
