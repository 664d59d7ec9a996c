// Removing the whole store: its file, its -wal and -shm, and what it keeps outside the file (the
// session keyring's entry, the TPM's counter and guess-limit index), so that a host, or passcoded
// for a user's quota, can give the store up. With a passcode set, the passcode is the proof, as a
// counted verify; with none set (also while logged out), nothing needs proof.

extension PasscodeStore {
    /// Removes the store (`passcode_store_remove`). With a passcode set, `current` must be it:
    /// checked as `verify` checks it (counted before the answer, lockout and the reset required
    /// refusing it), then the lifecycle callback is asked (`.removed`). With none set, `current`
    /// must be nil. Then, under the writers' lock: the rows are deleted, the removal marker
    /// becomes the whole schema (every other handle on the file answers `storeRemoved` from its
    /// next call and never writes to it), and the files are unlinked. This handle answers
    /// `storeRemoved` from then on; opening the path again makes a new, empty store.
    public func removeStore(current: SecretBytes?) throws(PasscodeError) {
        try removeStore(current: current, keepingEvents: nil)
    }

    /// As `removeStore(current:)`, handing the store's log (newest first) to `keep` in the
    /// removing transaction, after every check and before the rows go: passcoded keeps a removed
    /// store's events for its user (StoreRoot.keepEvents). A `keep` that throws removes nothing.
    public func removeStore(current: SecretBytes?,
                            keepingEvents keep: (([SecurityEventRecord]) throws(PasscodeError) -> Void)?) throws(PasscodeError) {
        let hasPasscode = try isPasscodeSet()
        if hasPasscode {
            guard let current else {
                throw PasscodeError.passcodeNeeded("the store has a passcode: removing it needs the passcode; nothing was removed")
            }
            try checkFormat(current, length: try passcodeLength())  // not counted
            _ = try verify(current)
            try callLifecycleHook(.removed)
        } else if current != nil {
            throw PasscodeError.noPasscode  // the caller thinks there is one: nothing removed
        }
        let (binding, sealed): (TPMState, TPMSealed?) = try exclusively { () throws(PasscodeError) in
            let found: (TPMState, TPMSealed?) = try lock.withLock { () throws(PasscodeError) in
                try db.write { () throws(PasscodeError) in
                    if integrityKey != nil, try !isIntactLocked() { throw PasscodeError.tampered }
                    // Another process set, changed or removed the passcode since it was proved (by
                    // the verify above, whose proof names it), or set one where there was none.
                    let row = try passcodeRowLocked()
                    guard hasPasscode ? row.map({ connection.proof?.names($0.text) == true }) == true : row == nil else {
                        throw PasscodeError.state("the passcode changed in another process during this call; nothing was removed: try again")
                    }
                    if let keep { try keep(try eventsLocked()) }
                    revokeSessionKeyLocked()  // before the wrap it is named after goes
                    let found = (try load(TPMState.self), try sealedLocked())
                    try db.markRemoved()
                    return found
                }
            }
            lock.withLock {
                // Best effort: a reader elsewhere may keep the log; the files go either way.
                _ = try? db.checkpointTruncate()
                db.unlinkStoreFiles()
            }
            return found
        }
        lock.withLock {
            db.closeRemoved()
            dropKeyLocked(revokeSession: false)  // revoked above, while the wrap could still be read
            connection = ConnectionState()
            recentWrongGuesses.removeAll()
            resetTriesTaken.removeAll()
            resetRequestsMade.removeAll()
            answers = Answers()
        }
        // The TPM's counter and guess-limit index went with the file that named them (best effort,
        // as at unbind: the file no longer names them).
        if binding.bound, let tcti = options.tpm, let device = try? openTPM(tcti) {
            if let index = try? binding.counterIndex() { try? device.undefineCounter(index) }
            if let sealed, let index = sealed.pinIndex, (try? device.load(sealed)) != nil { try? device.undefinePin(index) }
        }
    }
}
