// The store's files on disk, checked before SQLite sees them.
import CPasscodeShims

/// File-system checks before SQLite sees the path, so each problem gets its own status.
enum FileSystem {
    /// Checks the path before SQLite sees it. Returns true when no file is there yet: the caller
    /// builds the store under a temporary name and links it in (`createTemporaryStoreFile`,
    /// `linkStoreFile`), so that the store's path never names an empty file of ours.
    static func prepareStoreFile(_ path: String) throws(PasscodeError) -> Bool {
        var st = stat()
        if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK {
            throw PasscodeError.notAStore("\(path) is a symbolic link; a store is opened only by its own path, never through a link")
        }
        if stat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR { throw PasscodeError.isDirectory("the store path is a directory") }
            if (st.st_mode & S_IFMT) != S_IFREG { throw PasscodeError.notAStore("the store path is not a regular file") }
            try checkFolder(parentDirectory(path))
            // A file of another program (/etc/passwd, a photo) is named as such before its owner
            // or mode is judged: no advice to chmod a file that libpasscode did not make.
            if !OpenStoreFiles.contains(path: path) && !looksLikeStore(path) {
                throw PasscodeError.notAStore("\(path) is not a libpasscode store (not an SQLite database); refusing it")
            }
            try checkOwnership(path, what: "the store file")
            for suffix in ["-journal", "-wal", "-shm"] where lstat(path + suffix, &st) == 0 {
                try checkOwnership(path + suffix, what: "the store's \(suffix.dropFirst()) file")
            }
            if access(path, R_OK | W_OK) != 0 {
                throw PasscodeError.readOnly("the store file cannot be written (\(errnoText()))")
            }
            if access(parentDirectory(path), W_OK | X_OK) != 0 {
                throw PasscodeError.readOnly("the store's folder cannot be written (\(errnoText()))")
            }
            return false
        }
        let parent = parentDirectory(path)
        var pst = stat()
        if stat(parent, &pst) != 0 || (pst.st_mode & S_IFMT) != S_IFDIR {
            throw PasscodeError.notFound("the folder for the store, \(parent), does not exist or is not a folder: create it first")
        }
        if access(parent, W_OK | X_OK) != 0 {
            throw PasscodeError.readOnly("the folder for the store cannot be written (\(errnoText()))")
        }
        try checkFolder(parent)
        return true
    }

    /// Where a new store is built: a private folder (mode 0700) with a random name beside the
    /// store's path, `STORE.new-HEX`, holding the file `store`; the folder is held with an
    /// exclusive `flock` on `fd` until the store has its name, so that `removeStrayTemporaries`
    /// in another process leaves it alone. (A folder, not the file: the file's own `flock` is
    /// the writers' lock, shim.h.)
    struct Temporary {
        let folder: String
        let fd: Int32
        var path: String { folder + "/store" }
        /// Removes the temporary names (after the link the store keeps its own) and the lock.
        func discard() {
            FileSystem.removeStoreFiles(named: "store", in: fd)
            rmdir(folder)  // fails on anything but an empty folder (a link put in its place included)
            close(fd)
        }
    }

    static let temporaryMarker = ".new-"

    /// Creates the folder and empty file a new store is built in (`Temporary`). A crash leaves
    /// at most a stray `STORE.new-HEX` folder, which the next open removes; never an empty store.
    static func createTemporaryStoreFile(beside path: String) throws(PasscodeError) -> Temporary {
        func failure(_ what: String) -> PasscodeError {
            if errno == ENOSPC { return PasscodeError.full("the disk is full") }
            if errno == EROFS || errno == EACCES { return PasscodeError.readOnly("the store cannot be created (\(errnoText()))") }
            return PasscodeError.io("the store cannot be created (\(what): \(errnoText()))")
        }
        for _ in 0..<4 {
            let folder = path + temporaryMarker + String(Sodium.randomUniform(UInt32.max), radix: 16)
            if mkdir(folder, 0o700) != 0 {
                if errno == EEXIST { continue }
                throw failure("its temporary folder")
            }
            let fd = shim_open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW, 0)
            if fd < 0 && errno == ENOENT { continue }  // swept away before it was locked
            guard fd >= 0 else { rmdir(folder); throw failure("its temporary folder") }
            // Another process's sweep may have taken the folder between mkdir and the lock:
            // then the name no longer names it, and another name is drawn.
            var mine = stat(), named = stat()
            // Never waits: a lock held by another process (a sweep that found the folder before
            // it was locked, or anyone of this user) means another name is drawn.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &mine) == 0, lstat(folder, &named) == 0,
                  mine.st_dev == named.st_dev, mine.st_ino == named.st_ino else {
                close(fd)
                continue
            }
            let temp = Temporary(folder: folder, fd: fd)
            let file = shim_open(temp.path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard file >= 0 else {
                let error = failure("its temporary file")
                temp.discard()
                throw error
            }
            fchmod(file, 0o600)  // whatever the umask
            close(file)  // a new file: no lock of SQLite's on it yet
            return temp
        }
        throw PasscodeError.io("the store cannot be created: its temporary folder kept being removed")
    }

    /// Removes what a creation that crashed left beside the store: `STORE.new-HEX` folders no
    /// process is building in (their `flock` is free), with the store file inside and its -wal,
    /// -shm and -journal. Such a file is a sealed store with no passcode: left there, whoever
    /// may write the store file could copy it in as a new store. Only names go: when the crash
    /// came after the link, the file inside is the store itself, which keeps its own name.
    static func removeStrayTemporaries(beside path: String) {
        let folder = parentDirectory(path)
        let base = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let prefix = base + temporaryMarker
        guard let dir = opendir(folder) else { return }
        var strays: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name.hasPrefix(prefix), name.count > prefix.count, name.dropFirst(prefix.count).allSatisfy({ $0.isHexDigit }) {
                strays.append(folder + "/" + name)
            }
        }
        closedir(dir)
        for stray in strays {
            var st = stat()
            guard lstat(stray, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == geteuid() else { continue }
            let fd = shim_open(stray, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW, 0)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                // Through the locked descriptor, not the path: a folder renamed away and a link
                // put in its place must not lead the removal elsewhere.
                removeStoreFiles(named: "store", in: fd)
                rmdir(stray)
            }
            close(fd)  // a folder's descriptor: no lock of SQLite's lives on it
        }
    }

    /// Gives the store built at `temp` the name `path`, unless a file took that name meanwhile
    /// (another process created the store first: false, and that store is opened). A hard link
    /// where the file system has them, else a rename that replaces nothing.
    static func linkStoreFile(_ temp: String, to path: String) throws(PasscodeError) -> Bool {
        if link(temp, path) == 0 { return true }
        var failure = errno
        if failure == EPERM || failure == EOPNOTSUPP || failure == ENOTSUP || failure == ENOSYS {
            if Database.renameNoReplace(temp, path) == 0 { return true }
            failure = errno
        }
        if failure == EEXIST { return false }
        if failure == ENOSPC { throw PasscodeError.full("the disk is full") }
        throw PasscodeError.io("the new store could not be given its name (\(String(cString: strerror(failure))))")
    }

    /// Whether the file may be a libpasscode store: empty (created, not yet written), or an
    /// SQLite database whose application_id is libpasscode's or not yet set. An unreadable file
    /// counts as one: its owner and mode are judged next. Reads through a descriptor of its
    /// own, so never for a file this process has open as a store (`OpenStoreFiles`).
    static func looksLikeStore(_ path: String) -> Bool {
        let fd = shim_open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0)
        if fd < 0 { return true }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        let n = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 100) }
        if n <= 0 { return true }
        let magic = Array("SQLite format 3".utf8) + [0]
        if n < magic.count || Array(header[0..<magic.count]) != magic { return false }
        if n < 72 { return true }
        let appID = header[68..<72].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return appID == 0 || appID == Schema.applicationID
    }

    /// As OpenSSH's StrictModes: a store (or its -wal or -shm) that another user owns, or that
    /// group or others may read or write, was not made by us for us, and is refused.
    static func checkOwnership(_ path: String, what: String) throws(PasscodeError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) != S_IFREG {
            throw PasscodeError.permission("\(what) \(path) is not a regular file (a link or a device); refusing it")
        }
        if st.st_uid != geteuid() {
            throw PasscodeError.permission("\(what) \(path) is owned by uid \(st.st_uid), not by this user (uid \(geteuid())); refusing it")
        }
        if st.st_mode & 0o066 != 0 {
            let mode = String(st.st_mode & 0o777, radix: 8)
            throw PasscodeError.permission("\(what) \(path) may be read or written by group or others (mode 0\(mode)); chmod 600 it")
        }
    }

    /// As OpenSSH's StrictModes for ~/.ssh: the folder must be owned by this user (or root) and
    /// writable by no one else. A folder others may write, sticky bit or not, lets them plant the
    /// store's -journal, -wal or -shm before SQLite creates them (the sticky bit only stops them
    /// from removing ours), so it is refused, naming the folder and why.
    static func checkFolder(_ path: String) throws(PasscodeError) {
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        if st.st_uid != geteuid() && st.st_uid != 0 {
            throw PasscodeError.permission("the store's folder \(path) is owned by uid \(st.st_uid), neither this user (uid \(geteuid())) nor root; refusing it")
        }
        if st.st_mode & 0o022 != 0 {
            let mode = String(st.st_mode & 0o7777, radix: 8)
            throw PasscodeError.permission("the store's folder \(path) may be written by group or others (mode 0\(mode)), who could plant the store's -journal, -wal or -shm (a sticky bit does not stop that); keep the store in a folder only you can write (chmod 700)")
        }
        try checkAncestors(of: path)
    }

    /// Every folder above the store's folder, up to /, as OpenSSH's StrictModes checks the path
    /// to ~/.ssh: whoever may write one of them can rename the store's folder away and put
    /// another in its place. Each must be owned by this user or root and writable by no one
    /// else, except a root-owned folder with the sticky bit (such as /tmp): there no other
    /// user may rename an entry they do not own.
    static func checkAncestors(of folder: String) throws(PasscodeError) {
        guard let resolved = realpath(folder, nil) else { return }
        var path = String(cString: resolved)
        free(resolved)
        while path != "/" {
            path = parentDirectory(path)
            var st = stat()
            guard stat(path, &st) == 0 else { return }
            if st.st_uid != geteuid() && st.st_uid != 0 {
                throw PasscodeError.permission("the folder \(path) above the store is owned by uid \(st.st_uid), neither this user (uid \(geteuid())) nor root, who could rename the store's folder away and put another in its place; keep the store on a path only you and root control")
            }
            let sticky = st.st_mode & 0o1000 != 0 && st.st_uid == 0
            if st.st_mode & 0o022 != 0 && !sticky {
                let mode = String(st.st_mode & 0o7777, radix: 8)
                throw PasscodeError.permission("the folder \(path) above the store may be written by group or others (mode 0\(mode)) without being a root-owned sticky folder, so they could rename the store's folder away and put another in its place; keep the store on a path only you and root can write")
            }
        }
    }

    /// Removes the store file `name` in the open folder `folder` and its -wal, -shm and -journal
    /// (through the descriptor: a folder swapped for a link cannot lead the removal elsewhere).
    static func removeStoreFiles(named name: String, in folder: Int32) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlinkat(folder, name + suffix, 0) }
    }

    static func parentDirectory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
