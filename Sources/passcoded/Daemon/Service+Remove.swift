// RemoveStore: the caller's store of an app id goes, file and all, which frees one of the
// stores passcoded keeps for its uid (StoreRoot.maxStoresPerUID); its event log stays, in the
// uid's kept events (KeptEvents.swift). A login store goes by root only
// (Service.checkLoginStoreRemoval): pam_passcode's nullok passes a user without one.
import Glibc
import PasscodeBus
import PasscodeCore

extension Service {
    /// `passcode` is "" when the store has no passcode (passcode_store_remove with NULL and 0).
    func handleRemoveStore(_ call: BusCall, appID app: AppID, passcode code: SecretBytes) throws -> Prepared {
        try Service.checkLoginStoreRemoval(caller: call.caller, app: app)
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.removeStore(uid: caller, appID: app, current: code.count == 0 ? nil : code)
            return []
        }
    }
}

extension StoreRoot {
    /// Removes `uid`'s store `appID` (`PasscodeStore.removeStore`: with its passcode when one
    /// is set) and drops the handle kept on it, so the uid's count of stores goes down at once.
    /// An app id with no store creates nothing here: without a passcode there is nothing to do;
    /// with one, `noPasscode`, as the embedded store answers for a store with none.
    func removeStore(uid: uid_t, appID: AppID, current: SecretBytes?) throws {
        var st = stat()
        var absent = lstat("\(root)/\(uid)", &st) != 0 && errno == ENOENT
        if !absent {
            let folder = try userFolder(uid)  // a link or a folder of another owner is refused here
            absent = lstat("\(folder)/\(StoreRoot.fileStem(appID)).db", &st) != 0 && errno == ENOENT
        }
        if absent {
            if current != nil { throw PasscodeError.noPasscode }
            removeMark(uid: uid, appID: appID)  // a name a sandboxed app reserved is free again
            dropHandle(uid: uid, appID: appID)
            pushRemoval(uid: uid, appID: appID)
            return
        }
        // A kept handle whose file was removed before answers storeRemoved before anything is
        // counted: it is dropped, and the store the path names now is used. Once the removal has
        // begun on a store, storeRemoved is the answer (as embedded), never a second try on
        // another store, which would spend the caller's passcode as a guess at a store it never
        // proved.
        do {
            _ = try withStore(uid: uid, appID: appID) { try $0.isPasscodeSet() }
        } catch PasscodeError.storeRemoved {
            dropHandle(uid: uid, appID: appID)
        }
        // Its events stay readable for the uid (KeptEvents.swift), kept in the removing transaction.
        try withStore(uid: uid, appID: appID) { s in
            try s.removeStore(current: current) { (events) throws(PasscodeError) in try self.keepEvents(events, uid: uid, appID: appID) }
        }
        // A 0.9 recipient file goes with the store (today's recipient is in the store itself).
        removeLegacyRecipient(uid: uid, appID: appID)
        removeMark(uid: uid, appID: appID)
        dropHandle(uid: uid, appID: appID)
        pushRemoval(uid: uid, appID: appID)
    }
}
