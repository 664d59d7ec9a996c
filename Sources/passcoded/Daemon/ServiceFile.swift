// The small files passcoded keeps beside the stores (a uid's mail ledger, its removed stores'
// events): each written whole, never in place.
import Glibc
import PasscodeCore

enum ServiceFile {
    /// Writes `text` to `path`: a new file (0600) written, synced and renamed over the old one,
    /// so that a crash leaves the old file or the new one. Failing, it throws `io` with
    /// `cannot` (and the reason the new file could not be made, or `suffix`).
    static func replace(_ path: String, with text: String, cannot: String, suffix: String = "") throws(PasscodeError) {
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw PasscodeError.io("\(cannot) (\(String(cString: strerror(errno))))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw PasscodeError.io(cannot + suffix)
        }
    }
}
