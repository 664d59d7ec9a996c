// passcoded: libpasscode's stores behind the system bus, out of their users' reach.
//   passcoded [--config FILE]     (as root; FILE root-owned, default /etc/passcode/passcoded.conf)
// It opens the bus and claims org.libpasscode.Passcode1 as root, makes its store root, drops to
// the `passcode` user for good, then answers calls one at a time. See passcoded(8).
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

func fail(_ message: String) -> Never {
    log(message)
    exit(1)
}

var configPath = ServiceConfig.defaultPath
var configRequired = false
var arguments = CommandLine.arguments.dropFirst()
while let arg = arguments.popFirst() {
    switch arg {
    case "--config":
        guard let p = arguments.popFirst() else { fail("--config needs a file") }
        configPath = p
        configRequired = true
    default: fail("unknown argument \(arg.prefix(64)) (usage: passcoded [--config FILE])")
    }
}
guard getuid() == 0, geteuid() == 0 else { fail("must be started as root (it drops to its own user itself)") }
umask(0o077)
signal(SIGPIPE, SIG_IGN)

let config: ServiceConfig
do { config = try ServiceConfig.load(path: configPath, required: configRequired) } catch { fail(error.message) }
guard let account = Privileges.lookup(config.user) else { fail("no user \(config.user): create it (sysusers.d/passcoded.conf)") }
// The greeter accounts that read users' login states (Service+Login.swift), resolved now: an
// account that does not exist (its greeter not installed) reads nothing, and the log says so.
for name in config.greeterUsers {
    if let greeter = Privileges.lookup(name) {
        Service.greeterUIDs.insert(greeter.uid)
    } else {
        log("greeter_users: no account \(name) on this machine: it reads no login state")
    }
}
// The sandbox reader (Service+Sandbox.swift): forked now, while root and before the bus, the
// stores or the TPM's authorization are open, so that none of them reaches it. It keeps uid 0
// with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH alone, to read a sandboxed caller's /.flatpak-info.
SandboxBook.shared.helperFD = passcode_sandbox_helper_start()
guard SandboxBook.shared.helperFD >= 0 else {
    fail("cannot start the sandbox reader with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH (the unit's CapabilityBoundingSet= must keep "
         + "them): \(String(cString: strerror(errno)))")
}
if let problem = StoreRoot.prepareRoot(config.storeRoot, owner: account.uid, gid: account.gid) { fail(problem) }

// The TPM's owner authorization (provisioned mode): read now, as root, into wiped memory; after
// the drop the file is out of reach, and the authorization never leaves this process.
var ownerAuth: TPMOwnerAuthorization?
if config.tpm != nil {
    do throws(PasscodeError) {
        ownerAuth = try TPMOwnerAuthorization.read(path: config.tpmOwnerAuthFile ?? StoreOptions.defaultTPMOwnerAuthFile,
                                                   required: config.tpmOwnerAuthFile != nil)
    } catch { fail(error.message) }
}

// Descriptors: the stores' files (3 a kept handle), a bus connection a fingerprint check, a
// socket a mail. The limit is raised while root (the hard one too, where no systemd's
// LimitNOFILE= set it and the kernel lets root), so that no caller's work meets the default
// 1,024; under a hard limit it cannot raise, fewer handles are kept open (Limits.swift).
let descriptorLimit = passcode_bus_raise_nofile(ServiceLimits.descriptors)
guard descriptorLimit >= ServiceLimits.descriptorsNeeded else {
    fail("the limit of open descriptors is \(descriptorLimit) and cannot be raised to \(ServiceLimits.descriptorsNeeded) (LimitNOFILE= in the unit)")
}

var busPointer: OpaquePointer?
// No file descriptors on passcoded's connection: a message that carries one never reaches it.
var r = passcode_bus_open_system_without_fds(&busPointer)
guard r >= 0, let bus = busPointer else { fail("cannot connect to the system bus: \(String(cString: strerror(-r)))") }
guard passcode_bus_accepts_fds(bus) == 0 else { fail("the bus connection accepts file descriptors; refusing to serve on it") }
r = sd_bus_request_name(bus, BusNames.name, 0)
guard r >= 0 else { fail("cannot own \(BusNames.name): \(String(cString: strerror(-r)))") }

// A TPM device (device:/dev/tpmrm0) is its group's (tss): that group alone is kept.
let tpmGroup = Privileges.tpmDeviceGroup(config.tpm)
if let problem = Privileges.drop(to: account.uid, gid: account.gid, keeping: tpmGroup) { fail("dropping root: \(problem)") }

Mailer.configured = Mailer(config: config)
var options = StoreOptions()
options.cost = config.cost
options.clock = ServiceClock.source(offsetFile: config.clockOffsetFile)
options.sessionKeyring = false
options.tpm = config.tpm
options.tpmOwnerAuthHeld = ownerAuth
/// Two workers: on the 2-core machines this is built for, one Argon2id (64 MiB) per core.
nonisolated(unsafe) let service = Service(stores: StoreRoot(root: config.storeRoot, options: options,
                                                                    maxStoresPerUID: config.maxStoresPerUID,
                                                                    maxOpenHandles: ServiceLimits.openHandles(underLimit: descriptorLimit)),
                                          scheduler: Scheduler(workers: 2))
Scheduler.shared = service.scheduler
Service.fprintTimeoutSeconds = config.fprintTimeout
MailLedger.shared = MailLedger(stores: service.stores, perUIDHour: config.mailPerUIDHour, perUIDDay: config.mailPerUIDDay,
                               perRecipientDay: config.mailPerRecipientDay)
Service.readerClaims.limit = config.fprintChecksPerMinute

guard service.scheduler.wakeFD >= 0 else { fail("eventfd failed: \(String(cString: strerror(errno)))") }
HookOutbox.shared.wakeFD = service.scheduler.wakeFD

r = passcode_bus_add_object(bus) { m, member, error in
    guard let m else { return -EINVAL }
    return service.handle(m, member: member.map { String(cString: $0) } ?? "", error: error)
}
guard r >= 0 else { fail("cannot publish the interface: \(String(cString: strerror(-r)))") }
// The stores' objects: their properties, each caller's own (Service+Properties.swift).
// A sandboxed caller reads its own app's stores only, as its calls open them (Service+Sandbox.swift).
r = passcode_bus_add_store_objects(bus) { m, uid, app, out, name, nameSize, text, textSize in
    guard let m, let app, let out else { return -ENOENT }
    let appName = String(cString: app)
    // A connection whose sandbox is not read yet (it made no call) reads nothing, as one that watches nothing.
    guard SandboxBook.shared.known(m) != nil else { return -ENOENT }
    do { try service.admitPropertyRead(appName, m, caller: uid) } catch {
        let (errorName, errorText) = service.errorReply(error)
        if let name, nameSize > 0 { _ = strlcpyBytes(name, errorName, nameSize) }
        if let text, textSize > 0 { _ = strlcpyBytes(text, errorText, textSize) }
        return -EACCES
    }
    guard let props = PushedStates.shared.lookup(uid: uid, app: appName) else { return -ENOENT }
    out.pointee = props
    return 0
}
guard r >= 0 else { fail("cannot publish the stores' objects: \(String(cString: strerror(-r)))") }
// The login stores' objects, read by uid (Service+Login.swift): a connection reads those it watches.
r = passcode_bus_add_login_objects(bus) { m, uid, app, out in
    guard let m, let app, let out, let sender = sd_bus_message_get_sender(m) else { return -ENOENT }
    let appName = String(cString: app)
    guard LoginPushes.shared.isWatcher(String(cString: sender), uid: uid, app: appName, ownOnly: false),
          let props = LoginPushes.shared.lookup(uid: uid, app: appName) else { return -ENOENT }
    out.pointee = props
    return 0
}
guard r >= 0 else { fail("cannot publish the login stores' objects: \(String(cString: strerror(-r)))") }
// A connection that closed leaves its proofs and chosen lengths behind no more (Proofs.swift):
// without this, entries of closed connections would fill a uid's bound.
r = passcode_bus_watch_gone(bus) { name in
    guard let name else { return }
    ProofBook.shared.forget(sender: String(cString: name))
    PushedStates.shared.forget(sender: String(cString: name))
    LoginPushes.shared.forget(sender: String(cString: name))
    SandboxBook.shared.forget(sender: String(cString: name))
}
guard r >= 0 else { fail("cannot watch the bus for closed connections: \(String(cString: strerror(-r)))") }
SandboxBook.shared.rerun = { service.rerun($0) }
let groupNote = tpmGroup.map { ", keeping its device's group \($0)" } ?? ""
let tpmNote = config.tpm.map { " bound to the TPM at \($0) (\(ownerAuth?.isHeld == true ? "provisioned: the owner authorization held" : "unprovisioned")\(groupNote))" } ?? ""
log("ready on \(BusNames.name) as uid \(getuid()), stores in \(config.storeRoot)\(tpmNote); descriptors: \(descriptorLimit)")

/// The bus thread: reads calls (sd_bus_process), sends the workers' answers, and sleeps in
/// poll on the bus and the workers' eventfd.
func monotonicMicroseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
}

while true {
    repeat {
        r = sd_bus_process(bus, nil)
        if r < 0 { fail("the bus failed: \(String(cString: strerror(-r)))") }
    } while r > 0
    // The sandbox reader's answers: the calls parked for them run now (Service+Sandbox.swift).
    SandboxBook.shared.pump(bus)
    repeat {
        r = sd_bus_process(bus, nil)
        if r < 0 { fail("the bus failed: \(String(cString: strerror(-r)))") }
    } while r > 0
    let finished = service.scheduler.takeFinished()
    // The workers' calls to hosts' hooks; after taking the answers, so that a notification a call
    // sent goes out before that call's reply (Service+Hooks.swift).
    HookOutbox.shared.drain(bus)
    PushedStates.shared.drain(bus)  // a change's PropertiesChanged before the reply of its call
    LoginPushes.shared.drain(bus)
    for (message, result) in finished {
        service.finish(message.pointer, result)
        sd_bus_message_unref(message.pointer)
    }
    var fds = [pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
               pollfd(fd: service.scheduler.wakeFD, events: Int16(POLLIN), revents: 0),
               pollfd(fd: SandboxBook.shared.helperFD, events: Int16(POLLIN), revents: 0)]
    var until: UInt64 = 0
    var timeoutMs: Int32 = -1
    if sd_bus_get_timeout(bus, &until) > 0 && until != UInt64.max {
        let now = monotonicMicroseconds()
        timeoutMs = until <= now ? 0 : Int32(clamping: (until - now + 999) / 1000)
    }
    let sandboxMs = SandboxBook.shared.timeoutMilliseconds()
    if sandboxMs >= 0 && (timeoutMs < 0 || sandboxMs < timeoutMs) { timeoutMs = sandboxMs }
    if poll(&fds, 3, timeoutMs) < 0 && errno != EINTR { fail("poll failed: \(String(cString: strerror(errno)))") }
}
