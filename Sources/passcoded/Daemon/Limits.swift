// What passcoded needs of the process's own limits (main.swift sets them before it serves).
// The bounds on what a caller can make it hold are beside what they bound: Scheduler (queued
// calls a connection and a uid, hook waits a uid), ProofBook, HookBook and PushedStates (their
// entries a connection, a uid and in all), StoreRoot (stores a uid, open handles, a removed
// store's kept events: KeptEvents.swift); passcoded(8)
// lists them all in "Bounds".

enum ServiceLimits {
    /// The soft limit of open descriptors passcoded raises itself to (the unit's LimitNOFILE=).
    static let descriptors = 16384
    /// Descriptors kept for all but the stores: a bus connection for each thread that may wait
    /// on fprintd, the mail sockets, the process's own.
    static let descriptorsBesideStores = 320
    /// Below this it refuses to start: room for at least 16 kept handles.
    static let descriptorsNeeded = descriptorsBesideStores + 16 * 3

    /// The handles StoreRoot keeps open under a descriptor limit of `limit`: 3 descriptors each
    /// (the store, its -wal and -shm), at most 512 (a limit that could not be raised to 16,384,
    /// as under a hard limit of 1,024, keeps fewer rather than running out).
    static func openHandles(underLimit limit: Int) -> Int {
        max(16, min(512, (limit - descriptorsBesideStores) / 3))
    }
}
