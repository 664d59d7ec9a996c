// Workers for passcoded's calls: an Argon2id verify must not hold every other caller. Each uid
// has a queue of its own and at most one call running; the uids with work take turns, so one
// uid flooding the bus waits behind itself, not the others behind it. A call waiting on its
// host's hook (Service+Hooks.swift) gives its worker's turn up while it waits (`whileWaiting`):
// at most `workers` calls run at once, and more threads stand by so that hosts that never
// answer their hooks hold threads, not the other uids' turns.
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
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queues: [uid_t: [Job]] = [:]
    /// Uids with waiting work and none running, in turn order.
    private var turns: [uid_t] = []
    private var running: Set<uid_t> = []
    private var finished: [(MessageRef, Result<[Service.Value], Error>)] = []
    /// Calls running and not waiting on a host (at most `slots`).
    private var active = 0
    private let slots: Int
    /// Threads waiting on a host's hook, at most `standby`: past it a hook is refused at once.
    private var waiting = 0
    private let standby: Int
    /// The daemon's scheduler, for the hooks' waits (one a process).
    nonisolated(unsafe) static var shared: Scheduler?
    /// Readable when `finished` has answers for the bus thread (an eventfd).
    let wakeFD: Int32

    /// `workers` calls at once, and `standby` more threads for calls waiting on their hosts.
    init(workers: Int, standby: Int = 30) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
        wakeFD = passcode_bus_eventfd()
        slots = workers
        self.standby = standby
        for _ in 0..<(workers + standby) {
            var thread = pthread_t()
            let me = Unmanaged.passRetained(self).toOpaque()
            pthread_create(&thread, nil, { arg in
                Unmanaged<Scheduler>.fromOpaque(arg!).takeUnretainedValue().workLoop()
                return nil
            }, me)
            pthread_detach(thread)
        }
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Queues `job` for `uid`; false when that uid already has `maxQueuedPerUID` waiting.
    func submit(uid: uid_t, _ job: Job) -> Bool {
        locked {
            var queue = queues[uid] ?? []
            guard queue.count < Scheduler.maxQueuedPerUID else { return false }
            queue.append(job)
            queues[uid] = queue
            if !running.contains(uid) && !turns.contains(uid) { turns.append(uid) }
            pthread_cond_signal(cond)
            return true
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

    private func workLoop() {
        while true {
            pthread_mutex_lock(mutex)
            while turns.isEmpty || active >= slots { pthread_cond_wait(cond, mutex) }
            let uid = turns.removeFirst()
            let job = queues[uid]!.removeFirst()
            running.insert(uid)
            active += 1
            pthread_mutex_unlock(mutex)

            let result = Result { try job.work() }

            pthread_mutex_lock(mutex)
            running.remove(uid)
            active -= 1
            if queues[uid]?.isEmpty ?? true {
                queues[uid] = nil
            } else {
                turns.append(uid)  // its next call, after the other uids' turns
            }
            pthread_cond_broadcast(cond)
            finished.append((job.message, result))
            pthread_mutex_unlock(mutex)
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Runs `body` (a wait on a host's hook) with this worker's turn given up, and takes a turn
    /// again after it; nil, without running it, when `standby` threads already wait on hosts.
    func whileWaiting<R>(_ body: () -> R) -> R? {
        let allowed = locked { () -> Bool in
            guard waiting < standby else { return false }
            waiting += 1
            active -= 1
            pthread_cond_broadcast(cond)
            return true
        }
        guard allowed else { return nil }
        let result = body()
        pthread_mutex_lock(mutex)
        waiting -= 1
        while active >= slots { pthread_cond_wait(cond, mutex) }
        active += 1
        pthread_mutex_unlock(mutex)
        return result
    }
}
