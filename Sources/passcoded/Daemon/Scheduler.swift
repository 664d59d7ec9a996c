// Workers for passcoded's calls: an Argon2id verify must not hold every other caller. Each uid
// has at most one call running, and the uids with work take turns, so one uid flooding the bus
// waits behind itself, not the others behind it. Within a uid each bus connection has a queue of
// its own, and the uid's connections take turns too: one connection's backlog waits behind that
// connection, not the uid's other connections behind it (else a process of the user that queues
// calls that each wait 10 s on a hook it never answers holds the app's own calls behind all of
// them). A connection has at most one call in flight, so its calls run in the order sent.
// A call waiting on its host's hook (Service+Hooks.swift) gives up its worker's turn and its
// uid's (`whileWaiting`): the uid's other connections, and other uids, run meanwhile. So the
// calls of one uid overlap only where one waits on a hook; the per-call state they would
// otherwise share on a store's handle (the caller's hooks, its connection's proof and length)
// is the calling thread's, never the handle's (Proofs.swift). More threads than workers stand
// by, so that hosts that never answer their hooks hold threads, not turns.
// The standby threads are a global bound, and a global bound may refuse a uid's second call
// waiting on a host but never its first: that one is reserved. When every standby thread
// already waits and the uid has none waiting, one more thread starts (the workers keep their
// number), and an idle thread beyond `workers + max(standby, waiting)` ends. So the threads
// number at most `workers + standby + the uids with a call waiting on a host`, each uid past
// the standby threads holding one; before this, 30 uids with two hooked connections each held
// all 60 and every other uid's hook answered HOOK_FAILED.
import CPasscodeBus
import Glibc

/// A message kept (sd_bus_message_ref) until its answer is sent from the bus thread.
struct MessageRef: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

struct Job: Sendable {
    let message: MessageRef
    let work: @Sendable () throws -> [Service.Value]
}

final class Scheduler: @unchecked Sendable {
    /// Calls one uid may have waiting; more are refused (LimitsExceeded) rather than queued (the
    /// system bus lets a uid have 256 connections; a queue bounds the memory they can take).
    static let maxQueuedPerUID = 256
    /// Calls one connection may have waiting: a library client sends one at a time, and one
    /// connection alone cannot fill its uid's queue and have the uid's other connections refused.
    static let maxQueuedPerConnection = 32
    /// Calls of one uid that may wait on hosts' hooks at once; past it a hook is refused at once
    /// (as past `standby`): a uid's connections may overlap on hooks, but one uid cannot take
    /// more than its share of the standby threads from the others (with 60 of them, 30 uids
    /// must leave their hooks unanswered at once to fill them, as when a uid had one call in flight).
    static let maxWaitingPerUID = 2
    /// Threads for calls waiting on hosts that the daemon keeps beside its workers when none is
    /// reserved (a uid's first wait past them starts one more: `whileWaiting`).
    static let standbyThreads = 60

    /// One uid's work: a queue per connection (its unique bus name), taken in turn.
    private struct Lane {
        var queues: [String: [Job]] = [:]
        /// Connections with waiting work and no call in flight, in turn order.
        var ready: [String] = []
        /// Connections with a call running or waiting on a hook (one each at most).
        var inFlight: Set<String> = []
        var queued = 0
        /// A call of this uid runs (not waiting on a host): the uid's one running call.
        var holding = false
        /// Calls of this uid waiting on a host, or back from it and waiting for the uid's turn.
        var waiting = 0
        /// Calls back from a host's hook and waiting to go on: they go before the uid's next call.
        var returning = 0

        var isIdle: Bool { queued == 0 && inFlight.isEmpty }
        /// Whether a worker may start this uid's next call.
        var startable: Bool { !holding && returning == 0 && !ready.isEmpty }
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Idle workers wait here; each change that may let one call start wakes one of them (a
    /// broadcast would wake every idle thread, standby ones included, for each call: a herd of
    /// 62 threads on 2 cores, which cost a cached query through passcoded about 0.3 ms).
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Calls back from a host's hook wait here for their uid's turn and a slot; woken, all of
    /// them (few: `maxWaitingPerUID` a uid), when a slot or a uid's turn is given up.
    private let returnCond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Calls waiting on `returnCond`, over all uids.
    private var returningTotal = 0
    private var lanes: [uid_t: Lane] = [:]
    /// Uids with a connection ready (`Lane.ready` not empty), in turn order; a uid whose call
    /// runs is skipped until that call ends or waits on a host.
    private var turns: [uid_t] = []
    private var finished: [(MessageRef, Result<[Service.Value], Error>)] = []
    /// Calls running and not waiting on a host (at most `slots`).
    private var active = 0
    private let slots: Int
    /// Threads waiting on a host's hook (or back from one, for their turn): at most `standby`,
    /// and past it one a uid that has no other waiting (its reserved first); past that a hook is
    /// refused at once.
    private var waiting = 0
    private let standby: Int
    /// The worker threads alive: `slots + max(standby, waiting)`, give or take the ones
    /// starting or ending.
    private var threads = 0
    /// The daemon's scheduler, for the hooks' waits (one a process).
    nonisolated(unsafe) static var shared: Scheduler?
    /// Readable when `finished` has answers for the bus thread (an eventfd).
    let wakeFD: Int32

    /// The uid of the call running on this worker thread (`whileWaiting` gives its turn up).
    private final class Current {
        let uid: uid_t
        init(_ uid: uid_t) { self.uid = uid }
    }
    private static let currentKey: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// `workers` calls at once, and `standby` more threads for calls waiting on their hosts.
    init(workers: Int, standby: Int = Scheduler.standbyThreads) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
        pthread_cond_init(returnCond, nil)
        wakeFD = passcode_bus_eventfd()
        slots = workers
        self.standby = standby
        locked {
            for _ in 0..<(workers + standby) { startThreadLocked() }
        }
    }

    /// Starts one more worker thread (it ends itself in `workLoop` when no longer needed). Under
    /// `mutex`. A thread that cannot start (the system's own limit) leaves one fewer: the calls
    /// still run, on the threads there are.
    private func startThreadLocked() {
        var thread = pthread_t()
        let me = Unmanaged.passRetained(self).toOpaque()
        let r = pthread_create(&thread, nil, { arg in
            let me = Unmanaged<Scheduler>.fromOpaque(arg!)
            me.takeUnretainedValue().workLoop()
            me.release()
            return nil
        }, me)
        guard r == 0 else {
            Unmanaged<Scheduler>.fromOpaque(me).release()
            return
        }
        pthread_detach(thread)
        threads += 1
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Queues `job` for `uid`'s `connection` (the caller's unique bus name); nil, or why it is
    /// refused: the uid already has `maxQueuedPerUID` waiting, or the connection `maxQueuedPerConnection`.
    func submit(uid: uid_t, connection: String, _ job: Job) -> String? {
        locked {
            var lane = lanes[uid] ?? Lane()
            guard lane.queued < Scheduler.maxQueuedPerUID else {
                return "uid \(uid) has \(Scheduler.maxQueuedPerUID) calls waiting; try again"
            }
            guard lane.queues[connection, default: []].count < Scheduler.maxQueuedPerConnection else {
                return "this connection has \(Scheduler.maxQueuedPerConnection) calls waiting; try again"
            }
            lane.queues[connection, default: []].append(job)
            lane.queued += 1
            if !lane.inFlight.contains(connection) && !lane.ready.contains(connection) { lane.ready.append(connection) }
            lanes[uid] = lane
            if !turns.contains(uid) { turns.append(uid) }
            pthread_cond_signal(cond)
            return nil
        }
    }

    /// The answers ready to send (bus thread).
    func takeFinished() -> [(MessageRef, Result<[Service.Value], Error>)] {
        var value: UInt64 = 0
        _ = read(wakeFD, &value, 8)
        return locked {
            let done = finished
            finished = []
            return done
        }
    }

    /// The first uid in turn order whose next call may start. Under `mutex`.
    private func nextTurn() -> Int? {
        guard active < slots else { return nil }
        return turns.firstIndex { lanes[$0]?.startable ?? false }
    }

    private func workLoop() {
        while true {
            pthread_mutex_lock(mutex)
            var found: Int?
            while true {
                // A thread started for a reserved wait ends once the waits are back under `standby`.
                if threads > slots + max(standby, waiting) {
                    threads -= 1
                    if nextTurn() != nil { pthread_cond_signal(cond) }  // the wake-up it may have taken goes on
                    pthread_mutex_unlock(mutex)
                    return
                }
                found = nextTurn()
                if found != nil { break }
                pthread_cond_wait(cond, mutex)
            }
            let uid = turns.remove(at: found!)
            var lane = lanes[uid]!
            let connection = lane.ready.removeFirst()
            let job = lane.queues[connection]!.removeFirst()
            if lane.queues[connection]!.isEmpty { lane.queues[connection] = nil }
            lane.queued -= 1
            lane.inFlight.insert(connection)
            lane.holding = true
            lanes[uid] = lane
            // Still in turn order while its other connections wait: they go while this call waits
            // on a hook (skipped while it runs).
            if !lane.ready.isEmpty { turns.append(uid) }
            active += 1
            wakeOthersLocked()  // another call may start too (another uid's, a slot left)
            pthread_mutex_unlock(mutex)

            let current = Unmanaged.passRetained(Current(uid))
            pthread_setspecific(Scheduler.currentKey, current.toOpaque())
            let result = Result { try job.work() }
            pthread_setspecific(Scheduler.currentKey, nil)
            current.release()

            pthread_mutex_lock(mutex)
            lane = lanes[uid]!
            lane.inFlight.remove(connection)
            lane.holding = false
            // The connection's next call goes after the uid's other connections' turns, and the
            // uid's after the other uids'.
            if lane.queues[connection] != nil { lane.ready.append(connection) }
            turns.removeAll { $0 == uid }
            if lane.isIdle {
                lanes[uid] = nil
            } else {
                lanes[uid] = lane
                if !lane.ready.isEmpty { turns.append(uid) }
            }
            active -= 1
            wakeOthersLocked()
            finished.append((job.message, result))
            pthread_mutex_unlock(mutex)
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// After a slot or a uid's turn was given up, or work came: the calls back from hooks may go
    /// on (they take their turn before their uid's next call), and one idle worker is woken when
    /// a call can start. Under `mutex`.
    private func wakeOthersLocked() {
        if returningTotal > 0 { pthread_cond_broadcast(returnCond) }
        if nextTurn() != nil { pthread_cond_signal(cond) }
    }

    /// Runs `body` (a wait on a host's hook) with this worker's turn and its uid's given up, and
    /// takes both again after it (before the uid's next call starts); nil, without running it,
    /// when `maxWaitingPerUID` of this uid's calls already wait on hosts, or when `standby`
    /// threads do and one of them is this uid's. A uid's first wait is never refused: past
    /// `standby` it is reserved, and a thread starts in place of the one it holds, so the
    /// workers keep their number.
    func whileWaiting<R>(_ body: () -> R) -> R? {
        guard let raw = pthread_getspecific(Scheduler.currentKey) else { return nil }
        let uid = Unmanaged<Current>.fromOpaque(raw).takeUnretainedValue().uid
        let allowed = locked { () -> Bool in
            guard var lane = lanes[uid], lane.waiting < Scheduler.maxWaitingPerUID, waiting < standby || lane.waiting == 0 else {
                return false
            }
            if waiting >= standby && threads < slots + waiting + 1 { startThreadLocked() }  // the reserved one
            waiting += 1
            active -= 1
            lane.waiting += 1
            lane.holding = false
            lanes[uid] = lane
            wakeOthersLocked()
            return true
        }
        guard allowed else { return nil }
        let result = body()
        pthread_mutex_lock(mutex)
        lanes[uid]!.returning += 1
        returningTotal += 1
        while active >= slots || lanes[uid]!.holding { pthread_cond_wait(returnCond, mutex) }
        returningTotal -= 1
        active += 1
        waiting -= 1
        lanes[uid]!.returning -= 1
        lanes[uid]!.waiting -= 1
        lanes[uid]!.holding = true
        pthread_mutex_unlock(mutex)
        return result
    }
}
