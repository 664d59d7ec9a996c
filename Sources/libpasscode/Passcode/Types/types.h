/* The C API's types, declared once, in C: its structs and its enums (all but passcode_status
 * and passcode_cost, which the Swift code of Sources/libpasscode/Passcode declares). The Swift code fills
 * the structs and uses the enums through this header, so both agree on the layout and on every
 * value, in every module and build. scripts/gen_header.py writes them into include/passcode.h:
 * the structs between the PUBLIC markers unchanged; the enums between the ENUMS markers with
 * their doc comments, without the two macros below (and each setting's doc completed from its
 * definition, Setting.spec). It also writes Sources/shared/PasscodeCore/PublicEnumCases.swift, each
 * enum's list of cases for Swift (`make header`; `make check-header` fails when it is stale).
 *
 * A new enum or constant: add it here with its doc comment and its Swift name, then `make header`. */
#ifndef PASSCODE_TYPES_H
#define PASSCODE_TYPES_H
#include <stddef.h>
#include <stdint.h>

/* An enum whose values are only those listed (Swift: a frozen enum, switched over exhaustively),
 * 32 bits wide, named `swift` in Swift. */
#define PASSCODE_CLOSED_ENUM(name, swift) \
    enum __attribute__((enum_extensibility(closed))) __attribute__((swift_name(#swift))) name : int32_t
/* A constant's name in Swift (Setting.autoLockSeconds for PASSCODE_SETTING_AUTO_LOCK_SECONDS). */
#define PASSCODE_SWIFT_NAME(swift) __attribute__((swift_name(#swift)))

/* PUBLIC BEGIN */
/**
 * @brief What a lock screen draws, read in one call by passcode_lock_screen_read().
 *
 * Versioned by its size, as sizeof-first structs are in libcurl and zstd: set `size` to
 * `sizeof(passcode_lock_screen)` before every call. Fields are only ever added at the end, so
 * a program built against an older, smaller struct keeps working with a newer library (which
 * fills the fields that fit in `size`), and a newer program with an older library finds the
 * fields that library does not know set to 0. The smallest size accepted ends with `reason`.
 */
typedef struct passcode_lock_screen {
    /** Set by the caller: sizeof(passcode_lock_screen). The library never changes it. */
    size_t size;
    /** 1 when the app is locked now (as passcode_lock_state()), else 0. */
    int32_t locked;
    /** Why it is locked: a passcode_lock_reason (NONE when not locked). */
    int32_t reason;
    /** Seconds until the next attempt is allowed, 0 without a lockout (as passcode_lockout_remaining()). */
    int64_t lockout_seconds;
    /** Failed attempts since the last successful unlock (as passcode_failed_attempts()). */
    int32_t failed_attempts;
    /** 1 when the maximum failures were reached and only a reset lets a passcode in. */
    int32_t reset_required;
    /** A passcode_biometric_refusal: NONE when a biometric match may unlock now (as passcode_biometric_check()). */
    int32_t biometric_refusal;
    /** 1 when the lock screen should open the biometric prompt by itself (as passcode_biometric_lead()). */
    int32_t biometric_lead;
    /** The reported biometric kind: a passcode_biometric_kind. */
    int32_t biometric_kind;
    /** 1 when a passcode is set (as passcode_is_set()). */
    int32_t passcode_set;
    /** 1 when the passcode lock is on: a passcode is set and not disabled (as passcode_is_enabled()). */
    int32_t lock_enabled;
    /** The settings label, "Passcode & Face ID" etc. (as passcode_security_label()): a static
     *  string owned by the library. */
    const char *security_label;
} passcode_lock_screen;
/* PUBLIC END */

/* ENUMS BEGIN */
/** What the host reports about the app (passcode_app_event). */
typedef PASSCODE_CLOSED_ENUM(passcode_app_event, AppEvent) {
    /** The app process started. */
    PASSCODE_APP_EVENT_LAUNCHED PASSCODE_SWIFT_NAME(launched) = 0,
    /** The app went to the background. */
    PASSCODE_APP_EVENT_BACKGROUND PASSCODE_SWIFT_NAME(background) = 1,
    /** The app came back to the foreground. */
    PASSCODE_APP_EVENT_FOREGROUND PASSCODE_SWIFT_NAME(foreground) = 2,
    /** The user or the host asked to lock now. */
    PASSCODE_APP_EVENT_LOCK_NOW PASSCODE_SWIFT_NAME(lockNow) = 3
} passcode_app_event;

/** Why the app is locked (passcode_lock_state's reason). */
typedef PASSCODE_CLOSED_ENUM(passcode_lock_reason, LockReason) {
    /** Not locked. */
    PASSCODE_LOCK_REASON_NONE PASSCODE_SWIFT_NAME(none) = 0,
    /** Locked at launch (the default whenever the lock is on). */
    PASSCODE_LOCK_REASON_LAUNCH PASSCODE_SWIFT_NAME(launch) = 1,
    /** Locked on returning after at least the auto-lock timeout in the background. */
    PASSCODE_LOCK_REASON_BACKGROUND PASSCODE_SWIFT_NAME(background) = 2,
    /** Locked because the host or the user asked. */
    PASSCODE_LOCK_REASON_REQUESTED PASSCODE_SWIFT_NAME(requested) = 3,
    /** Locked because the device restarted while the app was in the background. */
    PASSCODE_LOCK_REASON_RESTART PASSCODE_SWIFT_NAME(restart) = 4,
    /**
     * Logged out ("forgot passcode", the forced-logout action, a deleted account): the passcode
     * is gone and the user must sign in again; cleared when a new passcode is set.
     */
    PASSCODE_LOCK_REASON_LOGGED_OUT PASSCODE_SWIFT_NAME(loggedOut) = 5
} passcode_lock_reason;

/** Why biometrics may not unlock now (passcode_biometric_unlock's out value). */
typedef PASSCODE_CLOSED_ENUM(passcode_biometric_refusal, BiometricRefusal) {
    /** Biometrics may unlock now. */
    PASSCODE_BIOMETRIC_REFUSAL_NONE PASSCODE_SWIFT_NAME(none) = 0,
    /** The first unlock after the app launched needs the passcode. */
    PASSCODE_BIOMETRIC_REFUSAL_FIRST_UNLOCK_AFTER_LAUNCH PASSCODE_SWIFT_NAME(firstUnlockAfterLaunch) = 1,
    /** The passcode was last entered 48 hours ago or more. */
    PASSCODE_BIOMETRIC_REFUSAL_PASSCODE_NOT_USED_FOR_48_HOURS PASSCODE_SWIFT_NAME(passcodeNotUsedFor48Hours) = 2,
    /** 5 biometric matches failed since the last unlock. */
    PASSCODE_BIOMETRIC_REFUSAL_TOO_MANY_BIOMETRIC_FAILURES PASSCODE_SWIFT_NAME(tooManyBiometricFailures) = 3,
    /** A lockout after failed passcode attempts is in progress. */
    PASSCODE_BIOMETRIC_REFUSAL_LOCKED_OUT PASSCODE_SWIFT_NAME(lockedOut) = 4,
    /** The passcode lock is disabled: there is nothing to unlock. */
    PASSCODE_BIOMETRIC_REFUSAL_LOCK_DISABLED PASSCODE_SWIFT_NAME(lockDisabled) = 5,
    /** Biometric unlock is switched off in the settings. */
    PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_NOT_ENABLED PASSCODE_SWIFT_NAME(biometricNotEnabled) = 6,
    /** The host reported no biometrics. */
    PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_UNAVAILABLE PASSCODE_SWIFT_NAME(biometricUnavailable) = 7,
    /** No passcode is set. */
    PASSCODE_BIOMETRIC_REFUSAL_NO_PASSCODE PASSCODE_SWIFT_NAME(noPasscode) = 8,
    /** The maximum number of failures requires a reset. */
    PASSCODE_BIOMETRIC_REFUSAL_RESET_REQUIRED PASSCODE_SWIFT_NAME(resetRequired) = 9,
    /** The device restarted since the passcode was last entered. */
    PASSCODE_BIOMETRIC_REFUSAL_DEVICE_RESTARTED PASSCODE_SWIFT_NAME(deviceRestarted) = 10,
    /**
     * passcode_biometric_unlock_key only: this process does not hold the data key (a new
     * launch, another handle, or "lock now" wiped it), so only the passcode can release it.
     */
    PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY PASSCODE_SWIFT_NAME(keyNotInMemory) = 11
} passcode_biometric_refusal;

/** What the host reports about biometrics (passcode_biometric_kind). */
typedef PASSCODE_CLOSED_ENUM(passcode_biometric_kind, BiometricKind) {
    /** No biometrics. */
    PASSCODE_BIOMETRIC_KIND_NONE PASSCODE_SWIFT_NAME(none) = 0,
    /** Face ID: "Passcode & Face ID". */
    PASSCODE_BIOMETRIC_KIND_FACE_ID PASSCODE_SWIFT_NAME(faceID) = 1,
    /** Touch ID: "Passcode & Touch ID". */
    PASSCODE_BIOMETRIC_KIND_TOUCH_ID PASSCODE_SWIFT_NAME(touchID) = 2,
    /** Another kind (iris, voice): shown as "Biometric". */
    PASSCODE_BIOMETRIC_KIND_OTHER PASSCODE_SWIFT_NAME(other) = 3,
    /** A fingerprint reader (on Linux: fprintd): "Passcode & Fingerprint". */
    PASSCODE_BIOMETRIC_KIND_FINGERPRINT PASSCODE_SWIFT_NAME(fingerprint) = 4
} passcode_biometric_kind;

/** What happened (passcode_event_log_get). */
typedef PASSCODE_CLOSED_ENUM(passcode_log_kind, SecurityEvent) {
    /** A wrong passcode (counted before the answer was known). */
    PASSCODE_LOG_KIND_FAILED_ATTEMPT PASSCODE_SWIFT_NAME(failedAttempt) = 0,
    /** A lockout started; the detail is its length in seconds. */
    PASSCODE_LOG_KIND_LOCKOUT_STARTED PASSCODE_SWIFT_NAME(lockoutStarted) = 1,
    /** Unlocked with the passcode. */
    PASSCODE_LOG_KIND_UNLOCKED_BY_PASSCODE PASSCODE_SWIFT_NAME(unlockedByPasscode) = 2,
    /** Unlocked with biometrics. */
    PASSCODE_LOG_KIND_UNLOCKED_BY_BIOMETRICS PASSCODE_SWIFT_NAME(unlockedByBiometrics) = 3,
    /** A biometric match failed. */
    PASSCODE_LOG_KIND_BIOMETRIC_FAILED PASSCODE_SWIFT_NAME(biometricFailed) = 4,
    /** The maximum number of failures was reached. */
    PASSCODE_LOG_KIND_MAX_FAILURES_REACHED PASSCODE_SWIFT_NAME(maxFailuresReached) = 5,
    /** A passcode was set. */
    PASSCODE_LOG_KIND_PASSCODE_SET PASSCODE_SWIFT_NAME(passcodeSet) = 6,
    /** The passcode was changed. */
    PASSCODE_LOG_KIND_PASSCODE_CHANGED PASSCODE_SWIFT_NAME(passcodeChanged) = 7,
    /** The passcode lock was turned off (the passcode stays stored). */
    PASSCODE_LOG_KIND_PASSCODE_DISABLED PASSCODE_SWIFT_NAME(passcodeDisabled) = 8,
    /** The passcode lock was turned on again. */
    PASSCODE_LOG_KIND_PASSCODE_ENABLED PASSCODE_SWIFT_NAME(passcodeEnabled) = 9,
    /** The passcode was removed. */
    PASSCODE_LOG_KIND_PASSCODE_REMOVED PASSCODE_SWIFT_NAME(passcodeRemoved) = 10,
    /** A reset code was requested. */
    PASSCODE_LOG_KIND_RESET_CODE_REQUESTED PASSCODE_SWIFT_NAME(resetCodeRequested) = 11,
    /** A reset code was handed to the delivery callback. */
    PASSCODE_LOG_KIND_RESET_CODE_DELIVERED PASSCODE_SWIFT_NAME(resetCodeDelivered) = 12,
    /** The delivery callback failed; the code was discarded. */
    PASSCODE_LOG_KIND_RESET_CODE_DELIVERY_FAILED PASSCODE_SWIFT_NAME(resetCodeDeliveryFailed) = 13,
    /** The passcode was reset with a code. */
    PASSCODE_LOG_KIND_RESET_COMPLETED PASSCODE_SWIFT_NAME(resetCompleted) = 14,
    /** A reset code expired. */
    PASSCODE_LOG_KIND_RESET_CODE_EXPIRED PASSCODE_SWIFT_NAME(resetCodeExpired) = 15,
    /** "Forgot passcode": the passcode was removed and the user logged out. */
    PASSCODE_LOG_KIND_FORGOT_PASSCODE PASSCODE_SWIFT_NAME(forgotPasscode) = 16,
    /** A setting changed; the detail is "name old -> new". */
    PASSCODE_LOG_KIND_SETTING_CHANGED PASSCODE_SWIFT_NAME(settingChanged) = 17,
    /** A device session was signed out; the detail is its id. */
    PASSCODE_LOG_KIND_SESSION_SIGNED_OUT PASSCODE_SWIFT_NAME(sessionSignedOut) = 18,
    /** The account was deleted (with it, every earlier event). */
    PASSCODE_LOG_KIND_ACCOUNT_DELETED PASSCODE_SWIFT_NAME(accountDeleted) = 19,
    /**
     * With a pepper: the security state was found changed outside libpasscode (logged once, at
     * the first call that saw it). Also, in the TPM's provisioned mode: guesses on the
     * passcode's guess-limit index that did not come through the library (their number in the
     * detail), charged to the store as failures.
     */
    PASSCODE_LOG_KIND_TAMPER_DETECTED PASSCODE_SWIFT_NAME(tamperDetected) = 20,
    /**
     * A TPM-bound store's file was older than the TPM's attempt counter (a restored copy); the
     * detail is "file <n> tpm <m>". A reset is required.
     */
    PASSCODE_LOG_KIND_TPM_ROLLBACK PASSCODE_SWIFT_NAME(tpmRollback) = 21
} passcode_log_kind;

/** The task a flow performs (passcode_flow_new). */
typedef PASSCODE_CLOSED_ENUM(passcode_flow_kind, FlowKind) {
    /** Lock screen: enter the passcode to unlock. */
    PASSCODE_FLOW_KIND_UNLOCK PASSCODE_SWIFT_NAME(unlock) = 0,
    /** Create the first passcode: enter, then confirm. */
    PASSCODE_FLOW_KIND_CREATE PASSCODE_SWIFT_NAME(create) = 1,
    /** Change: current, new, confirm. */
    PASSCODE_FLOW_KIND_CHANGE PASSCODE_SWIFT_NAME(change) = 2,
    /** Turn the lock off: enter the passcode (the passcode stays stored). */
    PASSCODE_FLOW_KIND_DISABLE PASSCODE_SWIFT_NAME(disable) = 3,
    /** Reset: the emailed code, then a new passcode and its confirmation. */
    PASSCODE_FLOW_KIND_RESET PASSCODE_SWIFT_NAME(reset) = 4
} passcode_flow_kind;

/** Where a flow is (passcode_flow_step). */
typedef PASSCODE_CLOSED_ENUM(passcode_flow_step, FlowStep) {
    /** Enter the passcode (unlock, disable). */
    PASSCODE_FLOW_STEP_ENTER_PASSCODE PASSCODE_SWIFT_NAME(enterPasscode) = 0,
    /** Enter the current passcode (change). */
    PASSCODE_FLOW_STEP_ENTER_CURRENT PASSCODE_SWIFT_NAME(enterCurrent) = 1,
    /** Enter the new passcode (create, change, reset). */
    PASSCODE_FLOW_STEP_ENTER_NEW PASSCODE_SWIFT_NAME(enterNew) = 2,
    /** Enter the new passcode again. */
    PASSCODE_FLOW_STEP_CONFIRM_NEW PASSCODE_SWIFT_NAME(confirmNew) = 3,
    /** Enter the reset code from the email. */
    PASSCODE_FLOW_STEP_ENTER_CODE PASSCODE_SWIFT_NAME(enterCode) = 4,
    /** Locked out: show the remaining time instead of the keypad. */
    PASSCODE_FLOW_STEP_LOCKED_OUT PASSCODE_SWIFT_NAME(lockedOut) = 5,
    /** The flow is over; see its result. */
    PASSCODE_FLOW_STEP_FINISHED PASSCODE_SWIFT_NAME(finished) = 6
} passcode_flow_step;

/** How a flow ended, or that it has not (passcode_flow_result). */
typedef PASSCODE_CLOSED_ENUM(passcode_flow_result, FlowResult) {
    /** Still taking input. */
    PASSCODE_FLOW_RESULT_IN_PROGRESS PASSCODE_SWIFT_NAME(inProgress) = 0,
    /** Done: unlocked, created, changed, disabled or reset. */
    PASSCODE_FLOW_RESULT_SUCCESS PASSCODE_SWIFT_NAME(success) = 1,
    /** Cancelled; nothing changed. */
    PASSCODE_FLOW_RESULT_CANCELLED PASSCODE_SWIFT_NAME(cancelled) = 2,
    /** Locked out for now; passcode_flow_refresh resumes when the time is over. */
    PASSCODE_FLOW_RESULT_LOCKED_OUT PASSCODE_SWIFT_NAME(lockedOut) = 3,
    /** The maximum number of failures was reached: only a reset helps now. */
    PASSCODE_FLOW_RESULT_NEEDS_RESET PASSCODE_SWIFT_NAME(needsReset) = 4,
    /** The maximum number of failures logged the user out. */
    PASSCODE_FLOW_RESULT_LOGGED_OUT PASSCODE_SWIFT_NAME(loggedOut) = 5,
    /** Cannot go on (for example no passcode is set); the error text says why. */
    PASSCODE_FLOW_RESULT_FAILED PASSCODE_SWIFT_NAME(failed) = 6
} passcode_flow_result;

/** What happens at the maximum number of failures. */
typedef PASSCODE_CLOSED_ENUM(passcode_max_failure_action, MaxFailureAction) {
    /** No passcode is accepted until the reset flow or "forgot passcode" completes (default). */
    PASSCODE_MAX_FAILURE_ACTION_REQUIRE_RESET PASSCODE_SWIFT_NAME(requireReset) = 0,
    /** The passcode is removed and the host is told to log the user out. */
    PASSCODE_MAX_FAILURE_ACTION_FORCED_LOGOUT PASSCODE_SWIFT_NAME(forcedLogout) = 1,
    /** Nothing more: the last delay repeats. */
    PASSCODE_MAX_FAILURE_ACTION_NONE PASSCODE_SWIFT_NAME(none) = 2
} passcode_max_failure_action;

/** The lockout tables a store can use (PASSCODE_SETTING_LOCKOUT_SCHEDULE). */
typedef PASSCODE_CLOSED_ENUM(passcode_lockout_schedule, LockoutScheduleKind) {
    /**
     * Apple's table: 1-4 failures nothing, 5: 1 min, 6: 5 min, 7-8: 15 min, 9: 1 h, 10: the maximum (default).
     */
    PASSCODE_LOCKOUT_SCHEDULE_APPLE PASSCODE_SWIFT_NAME(apple) = 0,
    /**
     * Android's table: 5: 1 min, 6: 5 min, 7: 15 min, 8: 30 min, 9: 90 min, 10-19: 3^(n-5) min, 20: the maximum.
     */
    PASSCODE_LOCKOUT_SCHEDULE_ANDROID PASSCODE_SWIFT_NAME(android) = 1,
    /** The host's table, installed with passcode_set_custom_schedule. */
    PASSCODE_LOCKOUT_SCHEDULE_CUSTOM PASSCODE_SWIFT_NAME(custom) = 2
} passcode_lockout_schedule;

/** What the host is told through its notification callback (passcode_notice). */
typedef PASSCODE_CLOSED_ENUM(passcode_notice, Notice) {
    /**
     * The passcode was reset with an emailed code: tell the user (security guidance asks for it).
     */
    PASSCODE_NOTICE_PASSCODE_RESET PASSCODE_SWIFT_NAME(passcodeReset) = 1
} passcode_notice;

/** Why the library asks the host to log the user out (passcode_set_logout_callback). */
typedef PASSCODE_CLOSED_ENUM(passcode_logout_reason, LogoutReason) {
    /** The maximum number of failed attempts, with the "forced logout" action. */
    PASSCODE_LOGOUT_REASON_MAX_FAILURES PASSCODE_SWIFT_NAME(maxFailures) = 1,
    /** The user chose "forgot passcode" on the lock screen. */
    PASSCODE_LOGOUT_REASON_FORGOT_PASSCODE PASSCODE_SWIFT_NAME(forgotPasscode) = 2
} passcode_logout_reason;

/**
 * A change of the passcode's life the host may mirror on its backend
 * (passcode_set_lifecycle_callback). The callback hears which, never digits or hashes.
 */
typedef PASSCODE_CLOSED_ENUM(passcode_lifecycle_event, LifecycleEvent) {
    /** The first passcode was set (passcode_set, the create flow). */
    PASSCODE_LIFECYCLE_EVENT_SET PASSCODE_SWIFT_NAME(set) = 1,
    /** The passcode was changed (passcode_change, the change flow). */
    PASSCODE_LIFECYCLE_EVENT_CHANGED PASSCODE_SWIFT_NAME(changed) = 2,
    /** The passcode was replaced with an emailed reset code (passcode_reset_complete). */
    PASSCODE_LIFECYCLE_EVENT_RESET PASSCODE_SWIFT_NAME(reset) = 3,
    /** The lock was turned off, the passcode kept (passcode_disable). */
    PASSCODE_LIFECYCLE_EVENT_DISABLED PASSCODE_SWIFT_NAME(disabled) = 4,
    /** The lock was turned on again (passcode_enable). */
    PASSCODE_LIFECYCLE_EVENT_ENABLED PASSCODE_SWIFT_NAME(enabled) = 5,
    /** The passcode was removed (passcode_remove). */
    PASSCODE_LIFECYCLE_EVENT_REMOVED PASSCODE_SWIFT_NAME(removed) = 6,
    /** "Forgot passcode": removed, the user logged out (passcode_forgot). */
    PASSCODE_LIFECYCLE_EVENT_FORGOT PASSCODE_SWIFT_NAME(forgot) = 7
} passcode_lifecycle_event;

/**
 * The settings a host can read and change (passcode_setting). Each one's last sentence (made
 * from its definition, Setting.spec) gives its stored name, default, values and the changes
 * that weaken protection: with a passcode set, those need the passcode entered on the same
 * handle within 5 minutes (passcode_authorize); no setting changes while the app is locked.
 */
typedef PASSCODE_CLOSED_ENUM(passcode_setting, Setting) {
    /**
     * 1 while a passcode is set and the lock is on. Set 1 to enable; turning it off needs
     * the passcode (passcode_disable, which checks it: the proof).
     */
    PASSCODE_SETTING_LOCK_ENABLED PASSCODE_SWIFT_NAME(lockEnabled) = 0,
    /**
     * Seconds in the background before the app locks; 0: immediately, with a 5-second grace period.
     */
    PASSCODE_SETTING_AUTO_LOCK_SECONDS PASSCODE_SWIFT_NAME(autoLockSeconds) = 1,
    /** 1: the app is locked at every launch while the lock is on. */
    PASSCODE_SETTING_LOCK_AT_LAUNCH PASSCODE_SWIFT_NAME(lockAtLaunch) = 2,
    /**
     * A passcode_lockout_schedule value: Apple's table, Android's, or a custom one (set with
     * passcode_set_custom_schedule, which weakens protection too).
     */
    PASSCODE_SETTING_LOCKOUT_SCHEDULE PASSCODE_SWIFT_NAME(lockoutSchedule) = 3,
    /** A passcode_max_failure_action value: what the maximum number of failures does. */
    PASSCODE_SETTING_MAX_FAILURE_ACTION PASSCODE_SWIFT_NAME(maxFailureAction) = 4,
    /**
     * 1: biometrics may unlock (needs a passcode, the passcode lock on and available biometrics;
     * otherwise PASSCODE_ERR_INVALID_SETTING, nothing changed).
     */
    PASSCODE_SETTING_BIOMETRIC_ENABLED PASSCODE_SWIFT_NAME(biometricEnabled) = 5,
    /**
     * 1: "Require on App Launch": every launch locks, even with lock at launch off,
     * and the lock screen leads with the biometric prompt (passcode_biometric_lead; the table
     * there has every combination with lock at launch). Turning it on needs biometric unlock on;
     * turning biometric unlock off keeps it (no setting changes another in passing): every launch
     * still locks, and the lock screen asks for the passcode until biometrics are back.
     */
    PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH PASSCODE_SWIFT_NAME(requireBiometricOnLaunch) = 6,
    /** 1: the account uses two-factor authentication (the host's backend enforces it). */
    PASSCODE_SETTING_TWO_FACTOR_ENABLED PASSCODE_SWIFT_NAME(twoFactorEnabled) = 7,
    /**
     * Read only: wall-clock milliseconds of the last account password change, 0 if never
     * (set by passcode_password_change_check).
     */
    PASSCODE_SETTING_LAST_PASSWORD_CHANGE PASSCODE_SWIFT_NAME(lastPasswordChange) = 8,
    /** Digits of the passcode: the set passcode's; while none is set, what this handle chose for its own first passcode (passcode_set_length), else 6. */
    PASSCODE_SETTING_PASSCODE_LENGTH PASSCODE_SWIFT_NAME(passcodeLength) = 9,
    /** Digits of an emailed reset code. */
    PASSCODE_SETTING_RESET_CODE_LENGTH PASSCODE_SWIFT_NAME(resetCodeLength) = 10,
    /** Seconds a reset code stays valid. */
    PASSCODE_SETTING_RESET_CODE_LIFETIME_SECONDS PASSCODE_SWIFT_NAME(resetCodeLifetimeSeconds) = 11,
    /** Seconds between two reset-code requests. */
    PASSCODE_SETTING_RESET_REQUEST_INTERVAL_SECONDS PASSCODE_SWIFT_NAME(resetRequestIntervalSeconds) = 12,
    /** Reset-code requests allowed in 24 hours. */
    PASSCODE_SETTING_RESET_REQUESTS_PER_DAY PASSCODE_SWIFT_NAME(resetRequestsPerDay) = 13,
    /**
     * 1: the first unlock after every app launch needs the passcode, and the data key is never
     * kept in the session keyring. 0 (as iOS): only the first unlock after a device
     * restart needs it; after that, biometrics may unlock across launches (48-hour rule, 5
     * failed matches). Turning it on removes the session keyring's entry.
     */
    PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH PASSCODE_SWIFT_NAME(passcodeAfterEveryLaunch) = 14
} passcode_setting;

/** What passcode_tpm_posture reports, one value per call. */
typedef PASSCODE_CLOSED_ENUM(passcode_tpm_posture_item, TPMPostureItem) {
    /**
     * 1 when the TPM's owner (storage) hierarchy has an authorization (TPM2_PT_PERMANENT
     * ownerAuthSet), else 0: then anyone who reaches the TPM may define, rewrite and remove NV
     * indexes of the owner hierarchy.
     */
    PASSCODE_TPM_POSTURE_ITEM_OWNER_AUTH_SET PASSCODE_SWIFT_NAME(ownerAuthSet) = 0,
    /**
     * 1 when the TPM's lockout hierarchy has an authorization (lockoutAuthSet), else 0: then
     * anyone who reaches the TPM may clear its dictionary-attack lockout (tpm2_dictionarylockout -c).
     */
    PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_AUTH_SET PASSCODE_SWIFT_NAME(lockoutAuthSet) = 1,
    /**
     * The failed authorizations after which the TPM locks out (TPM2_PT_MAX_AUTH_FAIL, maxTries).
     */
    PASSCODE_TPM_POSTURE_ITEM_MAX_TRIES PASSCODE_SWIFT_NAME(maxTries) = 2,
    /**
     * Seconds after which the TPM forgets one failure (TPM2_PT_LOCKOUT_INTERVAL, recoveryTime).
     */
    PASSCODE_TPM_POSTURE_ITEM_RECOVERY_TIME PASSCODE_SWIFT_NAME(recoveryTime) = 3,
    /**
     * Seconds the lockout hierarchy waits after a failed lockout authorization
     * (TPM2_PT_LOCKOUT_RECOVERY, lockoutRecovery).
     */
    PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_RECOVERY PASSCODE_SWIFT_NAME(lockoutRecovery) = 4,
    /** The failures the TPM's dictionary-attack lockout counts now (TPM2_PT_LOCKOUT_COUNTER). */
    PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_COUNTER PASSCODE_SWIFT_NAME(lockoutCounter) = 5,
    /**
     * 1 when the store is bound to this TPM: no guess of its passcode can be checked off this
     * machine, not even with a copy of the file (the promise every binding makes), else 0. Also 0
     * when the file names a PIN_FAIL index that the sealed object's policy does not name (the
     * file was changed, or the TPM is another or was cleared): then the binding holds nothing
     * the library can check.
     */
    PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH PASSCODE_SWIFT_NAME(noOfflineSearch) = 6,
    /**
     * 1 when the TPM itself limits the guesses, against any process that reaches it and clears
     * its DA lockout without the owner authorization: the store's passcode check goes through a
     * PIN_FAIL index (provisioned mode) and the owner authorization is set. 0 otherwise: the library's counters and the
     * TPM's DA lockout then bind only callers that go through the library.
     */
    PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT PASSCODE_SWIFT_NAME(hardwareGuessLimit) = 7,
    /**
     * The failures the store's PIN_FAIL index allows before it refuses even the right passcode
     * (its pinLimit, the policy's guess limit); 0 when the store has no such index. Only the
     * index the sealed object's policy names counts: the file names one, and a name the TPM's
     * copy of the object does not agree with gives 0 (checked by loading the object).
     */
    PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT PASSCODE_SWIFT_NAME(guessLimit) = 8
} passcode_tpm_posture_item;

/** What passcode_message_of() turns into a passcode_message. */
typedef PASSCODE_CLOSED_ENUM(passcode_message_topic, MessageTopic) {
    /** A passcode_biometric_refusal: why a biometric match may not unlock now. */
    PASSCODE_MESSAGE_TOPIC_BIOMETRIC_REFUSAL PASSCODE_SWIFT_NAME(biometricRefusal) = 0,
    /** A passcode_biometric_kind: the security settings' label ("Passcode & Face ID"). */
    PASSCODE_MESSAGE_TOPIC_SECURITY_LABEL PASSCODE_SWIFT_NAME(securityLabel) = 1,
    /** A passcode_log_kind: a security log entry's name ("Failed attempt"). */
    PASSCODE_MESSAGE_TOPIC_LOG_KIND PASSCODE_SWIFT_NAME(logKind) = 2
} passcode_message_topic;

/* MESSAGES BEGIN */
/**
 * Every message libpasscode may show a person, with a stable code: a host with its own
 * translations shows its text for the code, and passcode_message_text() gives the library's,
 * in the host's language. GENERATED from Types/messages.txt by scripts/gen_messages.py.
 * Values are only ever appended; the PAM_ ones (500 on) are pam_passcode(8)'s.
 */
typedef PASSCODE_CLOSED_ENUM(passcode_message, Message) {
    /** No message. */
    PASSCODE_MESSAGE_NONE PASSCODE_SWIFT_NAME(none) = 0,
    /** "Enter Passcode": A flow's prompt: the lock screen. */
    PASSCODE_MESSAGE_ENTER_PASSCODE PASSCODE_SWIFT_NAME(enterPasscode) = 1,
    /** "Enter passcode to disable": A flow's prompt: turning the passcode lock off. */
    PASSCODE_MESSAGE_ENTER_PASSCODE_TO_DISABLE PASSCODE_SWIFT_NAME(enterPasscodeToDisable) = 2,
    /** "Enter current passcode": A flow's prompt: the first step of changing the passcode. */
    PASSCODE_MESSAGE_ENTER_CURRENT_PASSCODE PASSCODE_SWIFT_NAME(enterCurrentPasscode) = 3,
    /** "Enter new passcode" */
    PASSCODE_MESSAGE_ENTER_NEW_PASSCODE PASSCODE_SWIFT_NAME(enterNewPasscode) = 4,
    /** "Confirm new passcode" */
    PASSCODE_MESSAGE_CONFIRM_NEW_PASSCODE PASSCODE_SWIFT_NAME(confirmNewPasscode) = 5,
    /** "Enter the code from the email": A flow's prompt: the reset code that was sent by email. */
    PASSCODE_MESSAGE_ENTER_RESET_CODE PASSCODE_SWIFT_NAME(enterResetCode) = 6,
    /** "Enter a new passcode": A flow's prompt: the new passcode after a reset. */
    PASSCODE_MESSAGE_ENTER_A_NEW_PASSCODE PASSCODE_SWIFT_NAME(enterANewPasscode) = 7,
    /** "Enter a passcode": A flow's prompt: creating the first passcode. */
    PASSCODE_MESSAGE_ENTER_A_PASSCODE PASSCODE_SWIFT_NAME(enterAPasscode) = 8,
    /** "Confirm passcode" */
    PASSCODE_MESSAGE_CONFIRM_PASSCODE PASSCODE_SWIFT_NAME(confirmPasscode) = 9,
    /** "Passcode locked": A flow's prompt while too many failed attempts keep the keypad closed. */
    PASSCODE_MESSAGE_PASSCODE_LOCKED PASSCODE_SWIFT_NAME(passcodeLocked) = 10,
    /** "Done": A finished flow's prompt. */
    PASSCODE_MESSAGE_FLOW_DONE PASSCODE_SWIFT_NAME(flowDone) = 11,
    /** "Cancelled" */
    PASSCODE_MESSAGE_FLOW_CANCELLED PASSCODE_SWIFT_NAME(flowCancelled) = 12,
    /** "Passcode reset required" */
    PASSCODE_MESSAGE_PASSCODE_RESET_REQUIRED PASSCODE_SWIFT_NAME(passcodeResetRequired) = 13,
    /** "Logged out" */
    PASSCODE_MESSAGE_FLOW_LOGGED_OUT PASSCODE_SWIFT_NAME(flowLoggedOut) = 14,
    /** "Stopped" */
    PASSCODE_MESSAGE_FLOW_STOPPED PASSCODE_SWIFT_NAME(flowStopped) = 15,
    /** "Incorrect passcode": A flow's error line. */
    PASSCODE_MESSAGE_INCORRECT_PASSCODE PASSCODE_SWIFT_NAME(incorrectPasscode) = 20,
    /** "Too many attempts. Try again in %d second." (%d: the number): A lockout: the keypad opens again after this many seconds. */
    PASSCODE_MESSAGE_TRY_AGAIN_IN_SECONDS PASSCODE_SWIFT_NAME(tryAgainInSeconds) = 21,
    /** "Too many attempts. Try again in %d minute." (%d: the number): A lockout: the keypad opens again after this many minutes. */
    PASSCODE_MESSAGE_TRY_AGAIN_IN_MINUTES PASSCODE_SWIFT_NAME(tryAgainInMinutes) = 22,
    /** "Passcodes don't match. Try again." */
    PASSCODE_MESSAGE_PASSCODES_DONT_MATCH PASSCODE_SWIFT_NAME(passcodesDontMatch) = 23,
    /** "Choose a harder passcode: it has 4 digits in a row that repeat or climb or fall evenly.": Why a new passcode was refused: "climb or fall evenly" means 1234, 2468, 9876. */
    PASSCODE_MESSAGE_WEAK_RUN PASSCODE_SWIFT_NAME(weakRun) = 24,
    /** "Choose a harder passcode: it is one of the most commonly chosen passcodes." */
    PASSCODE_MESSAGE_WEAK_COMMON PASSCODE_SWIFT_NAME(weakCommon) = 25,
    /** "Choose a harder passcode: it repeats a three-digit group." */
    PASSCODE_MESSAGE_WEAK_REPEATED_GROUP PASSCODE_SWIFT_NAME(weakRepeatedGroup) = 26,
    /** "Choose a harder passcode: it repeats a two-digit pair." */
    PASSCODE_MESSAGE_WEAK_REPEATED_PAIR PASSCODE_SWIFT_NAME(weakRepeatedPair) = 27,
    /** "Choose a harder passcode: it is made of three doubled digits." */
    PASSCODE_MESSAGE_WEAK_DOUBLED_DIGITS PASSCODE_SWIFT_NAME(weakDoubledDigits) = 28,
    /** "Choose a harder passcode: its second half mirrors the first." */
    PASSCODE_MESSAGE_WEAK_MIRRORED PASSCODE_SWIFT_NAME(weakMirrored) = 29,
    /** "Choose a harder passcode: it looks like a date." */
    PASSCODE_MESSAGE_WEAK_DATE PASSCODE_SWIFT_NAME(weakDate) = 30,
    /** "Choose a harder passcode.": A weak passcode whose reason is not known here. */
    PASSCODE_MESSAGE_WEAK_PASSCODE PASSCODE_SWIFT_NAME(weakPasscode) = 31,
    /** "Incorrect code. %d more try before it is discarded." (%d: the number): A wrong reset code: the number of tries it has left. */
    PASSCODE_MESSAGE_WRONG_CODE_TRIES_LEFT PASSCODE_SWIFT_NAME(wrongCodeTriesLeft) = 32,
    /** "Incorrect code. It was discarded; request a new one." */
    PASSCODE_MESSAGE_WRONG_CODE_DISCARDED PASSCODE_SWIFT_NAME(wrongCodeDiscarded) = 33,
    /** "Incorrect code." */
    PASSCODE_MESSAGE_WRONG_CODE PASSCODE_SWIFT_NAME(wrongCode) = 34,
    /** "The reset code has expired; request a new one." */
    PASSCODE_MESSAGE_RESET_CODE_EXPIRED PASSCODE_SWIFT_NAME(resetCodeExpired) = 35,
    /** "No reset code is pending; request a new one." */
    PASSCODE_MESSAGE_NO_RESET_CODE PASSCODE_SWIFT_NAME(noResetCode) = 36,
    /** "Passcode reset. Data protected by the old passcode could not be kept.": A reset that succeeded, but without a recovery key the app's protected data is gone. */
    PASSCODE_MESSAGE_RESET_DATA_NOT_KEPT PASSCODE_SWIFT_NAME(resetDataNotKept) = 37,
    /** "Too many failed attempts; the passcode must be reset." */
    PASSCODE_MESSAGE_RESET_REQUIRED PASSCODE_SWIFT_NAME(resetRequired) = 38,
    /** "Too many failed attempts; the passcode was removed and you were logged out." */
    PASSCODE_MESSAGE_LOGGED_OUT_AFTER_FAILURES PASSCODE_SWIFT_NAME(loggedOutAfterFailures) = 39,
    /** "No passcode is set." */
    PASSCODE_MESSAGE_NO_PASSCODE PASSCODE_SWIFT_NAME(noPasscode) = 40,
    /** "A passcode is already set." */
    PASSCODE_MESSAGE_ALREADY_SET PASSCODE_SWIFT_NAME(alreadySet) = 41,
    /** "The passcode service is not available. Try again later.": passcoded, the system service that keeps the passcode, did not answer. */
    PASSCODE_MESSAGE_SERVICE_UNAVAILABLE PASSCODE_SWIFT_NAME(serviceUnavailable) = 42,
    /** "The app's security data could not be read or saved." */
    PASSCODE_MESSAGE_STORE_FAILED PASSCODE_SWIFT_NAME(storeFailed) = 43,
    /** "Something went wrong. Try again." */
    PASSCODE_MESSAGE_SOMETHING_WENT_WRONG PASSCODE_SWIFT_NAME(somethingWentWrong) = 44,
    /** "The security chip is locked after too many attempts. Try again in %d minute." (%d: the number): The computer's security chip (TPM) refuses every check for a while. */
    PASSCODE_MESSAGE_TPM_LOCKED_MINUTES PASSCODE_SWIFT_NAME(tpmLockedMinutes) = 45,
    /** "The security chip allows no more attempts; the passcode must be reset." */
    PASSCODE_MESSAGE_TPM_RESET_REQUIRED PASSCODE_SWIFT_NAME(tpmResetRequired) = 46,
    /** "Enter the passcode first." */
    PASSCODE_MESSAGE_PASSCODE_NEEDED PASSCODE_SWIFT_NAME(passcodeNeeded) = 47,
    /** "Unlock the app first." */
    PASSCODE_MESSAGE_APP_LOCKED PASSCODE_SWIFT_NAME(appLocked) = 48,
    /** "The change was not accepted. Try again later.": The app's own server refused the change (the app says why in its own words). */
    PASSCODE_MESSAGE_CHANGE_REFUSED PASSCODE_SWIFT_NAME(changeRefused) = 49,
    /** "Passcode & Biometric": The security settings' label: the passcode and the biometrics of this device. */
    PASSCODE_MESSAGE_LABEL_PASSCODE_BIOMETRIC PASSCODE_SWIFT_NAME(labelPasscodeBiometric) = 50,
    /** "Passcode & Face ID" */
    PASSCODE_MESSAGE_LABEL_PASSCODE_FACE_ID PASSCODE_SWIFT_NAME(labelPasscodeFaceId) = 51,
    /** "Passcode & Touch ID" */
    PASSCODE_MESSAGE_LABEL_PASSCODE_TOUCH_ID PASSCODE_SWIFT_NAME(labelPasscodeTouchId) = 52,
    /** "Passcode & Fingerprint" */
    PASSCODE_MESSAGE_LABEL_PASSCODE_FINGERPRINT PASSCODE_SWIFT_NAME(labelPasscodeFingerprint) = 53,
    /** "The first unlock after the app starts needs the passcode.": Why a fingerprint (or a face) may not unlock now. */
    PASSCODE_MESSAGE_BIOMETRIC_FIRST_UNLOCK PASSCODE_SWIFT_NAME(biometricFirstUnlock) = 61,
    /** "The passcode has not been entered for 48 hours: enter it." */
    PASSCODE_MESSAGE_BIOMETRIC_PASSCODE_48_HOURS PASSCODE_SWIFT_NAME(biometricPasscode48Hours) = 62,
    /** "Too many failed matches: enter the passcode." */
    PASSCODE_MESSAGE_BIOMETRIC_TOO_MANY_FAILURES PASSCODE_SWIFT_NAME(biometricTooManyFailures) = 63,
    /** "Too many failed attempts: wait for the lockout to end." */
    PASSCODE_MESSAGE_BIOMETRIC_LOCKED_OUT PASSCODE_SWIFT_NAME(biometricLockedOut) = 64,
    /** "The passcode lock is off." */
    PASSCODE_MESSAGE_BIOMETRIC_LOCK_DISABLED PASSCODE_SWIFT_NAME(biometricLockDisabled) = 65,
    /** "Biometric unlock is turned off." */
    PASSCODE_MESSAGE_BIOMETRIC_NOT_ENABLED PASSCODE_SWIFT_NAME(biometricNotEnabled) = 66,
    /** "No biometrics are available on this device." */
    PASSCODE_MESSAGE_BIOMETRIC_UNAVAILABLE PASSCODE_SWIFT_NAME(biometricUnavailable) = 67,
    /** "No passcode is set." */
    PASSCODE_MESSAGE_BIOMETRIC_NO_PASSCODE PASSCODE_SWIFT_NAME(biometricNoPasscode) = 68,
    /** "The passcode must be reset." */
    PASSCODE_MESSAGE_BIOMETRIC_RESET_REQUIRED PASSCODE_SWIFT_NAME(biometricResetRequired) = 69,
    /** "The device restarted: enter the passcode." */
    PASSCODE_MESSAGE_BIOMETRIC_DEVICE_RESTARTED PASSCODE_SWIFT_NAME(biometricDeviceRestarted) = 70,
    /** "Enter the passcode to open the app's protected data." */
    PASSCODE_MESSAGE_BIOMETRIC_KEY_NOT_IN_MEMORY PASSCODE_SWIFT_NAME(biometricKeyNotInMemory) = 71,
    /** "Failed attempt": An entry of the security log. */
    PASSCODE_MESSAGE_LOG_FAILED_ATTEMPT PASSCODE_SWIFT_NAME(logFailedAttempt) = 80,
    /** "Lockout started" */
    PASSCODE_MESSAGE_LOG_LOCKOUT_STARTED PASSCODE_SWIFT_NAME(logLockoutStarted) = 81,
    /** "Unlocked by passcode" */
    PASSCODE_MESSAGE_LOG_UNLOCKED_BY_PASSCODE PASSCODE_SWIFT_NAME(logUnlockedByPasscode) = 82,
    /** "Unlocked by biometrics" */
    PASSCODE_MESSAGE_LOG_UNLOCKED_BY_BIOMETRICS PASSCODE_SWIFT_NAME(logUnlockedByBiometrics) = 83,
    /** "Biometric failed" */
    PASSCODE_MESSAGE_LOG_BIOMETRIC_FAILED PASSCODE_SWIFT_NAME(logBiometricFailed) = 84,
    /** "Max failures reached" */
    PASSCODE_MESSAGE_LOG_MAX_FAILURES_REACHED PASSCODE_SWIFT_NAME(logMaxFailuresReached) = 85,
    /** "Passcode set" */
    PASSCODE_MESSAGE_LOG_PASSCODE_SET PASSCODE_SWIFT_NAME(logPasscodeSet) = 86,
    /** "Passcode changed" */
    PASSCODE_MESSAGE_LOG_PASSCODE_CHANGED PASSCODE_SWIFT_NAME(logPasscodeChanged) = 87,
    /** "Passcode disabled" */
    PASSCODE_MESSAGE_LOG_PASSCODE_DISABLED PASSCODE_SWIFT_NAME(logPasscodeDisabled) = 88,
    /** "Passcode enabled" */
    PASSCODE_MESSAGE_LOG_PASSCODE_ENABLED PASSCODE_SWIFT_NAME(logPasscodeEnabled) = 89,
    /** "Passcode removed" */
    PASSCODE_MESSAGE_LOG_PASSCODE_REMOVED PASSCODE_SWIFT_NAME(logPasscodeRemoved) = 90,
    /** "Reset code requested" */
    PASSCODE_MESSAGE_LOG_RESET_CODE_REQUESTED PASSCODE_SWIFT_NAME(logResetCodeRequested) = 91,
    /** "Reset code delivered" */
    PASSCODE_MESSAGE_LOG_RESET_CODE_DELIVERED PASSCODE_SWIFT_NAME(logResetCodeDelivered) = 92,
    /** "Reset code delivery failed" */
    PASSCODE_MESSAGE_LOG_RESET_CODE_DELIVERY_FAILED PASSCODE_SWIFT_NAME(logResetCodeDeliveryFailed) = 93,
    /** "Reset completed" */
    PASSCODE_MESSAGE_LOG_RESET_COMPLETED PASSCODE_SWIFT_NAME(logResetCompleted) = 94,
    /** "Reset code expired" */
    PASSCODE_MESSAGE_LOG_RESET_CODE_EXPIRED PASSCODE_SWIFT_NAME(logResetCodeExpired) = 95,
    /** "Forgot passcode" */
    PASSCODE_MESSAGE_LOG_FORGOT_PASSCODE PASSCODE_SWIFT_NAME(logForgotPasscode) = 96,
    /** "Setting changed" */
    PASSCODE_MESSAGE_LOG_SETTING_CHANGED PASSCODE_SWIFT_NAME(logSettingChanged) = 97,
    /** "Session signed out" */
    PASSCODE_MESSAGE_LOG_SESSION_SIGNED_OUT PASSCODE_SWIFT_NAME(logSessionSignedOut) = 98,
    /** "Account deleted" */
    PASSCODE_MESSAGE_LOG_ACCOUNT_DELETED PASSCODE_SWIFT_NAME(logAccountDeleted) = 99,
    /** "Tamper detected" */
    PASSCODE_MESSAGE_LOG_TAMPER_DETECTED PASSCODE_SWIFT_NAME(logTamperDetected) = 100,
    /** "TPM rollback": The store file was older than the security chip's (TPM's) count of attempts: a restored copy. */
    PASSCODE_MESSAGE_LOG_TPM_ROLLBACK PASSCODE_SWIFT_NAME(logTpmRollback) = 101,
    /** "Enter your current password.": Account and reset: what a refused request says. */
    PASSCODE_MESSAGE_PASSWORD_EMPTY PASSCODE_SWIFT_NAME(passwordEmpty) = 110,
    /** "The new password must have at least %d character." (%d: the number) */
    PASSCODE_MESSAGE_PASSWORD_TOO_SHORT PASSCODE_SWIFT_NAME(passwordTooShort) = 111,
    /** "The new password may have at most %d character." (%d: the number) */
    PASSCODE_MESSAGE_PASSWORD_TOO_LONG PASSCODE_SWIFT_NAME(passwordTooLong) = 112,
    /** "The confirmation does not match the new password." */
    PASSCODE_MESSAGE_PASSWORD_MISMATCH PASSCODE_SWIFT_NAME(passwordMismatch) = 113,
    /** "This session is no longer signed in." */
    PASSCODE_MESSAGE_SESSION_NOT_FOUND PASSCODE_SWIFT_NAME(sessionNotFound) = 114,
    /** "This device's own session cannot be signed out here; log out instead." */
    PASSCODE_MESSAGE_SESSION_IS_CURRENT PASSCODE_SWIFT_NAME(sessionIsCurrent) = 115,
    /** "Type DELETE, in capitals, to confirm.": DELETE is the word the person must type; it stays DELETE in every language. */
    PASSCODE_MESSAGE_CONFIRMATION_MISMATCH PASSCODE_SWIFT_NAME(confirmationMismatch) = 116,
    /** "Too many code requests. Try again in %d second." (%d: the number) */
    PASSCODE_MESSAGE_RESET_REQUEST_WAIT_SECONDS PASSCODE_SWIFT_NAME(resetRequestWaitSeconds) = 117,
    /** "Too many code requests. Try again in %d minute." (%d: the number) */
    PASSCODE_MESSAGE_RESET_REQUEST_WAIT_MINUTES PASSCODE_SWIFT_NAME(resetRequestWaitMinutes) = 118,
    /** "The code could not be sent. Try again later." */
    PASSCODE_MESSAGE_RESET_CODE_NOT_SENT PASSCODE_SWIFT_NAME(resetCodeNotSent) = 119,
    /** "A newer code was sent: enter the code from the latest email." */
    PASSCODE_MESSAGE_RESET_CODE_REPLACED PASSCODE_SWIFT_NAME(resetCodeReplaced) = 120,
    /** "Your passcode was reset with a code sent by email.": Said after a reset, as security guidance asks. */
    PASSCODE_MESSAGE_PASSCODE_WAS_RESET PASSCODE_SWIFT_NAME(passcodeWasReset) = 121,
    /** "The recovery key is not right." */
    PASSCODE_MESSAGE_WRONG_RECOVERY_KEY PASSCODE_SWIFT_NAME(wrongRecoveryKey) = 122,
    /** "The fingerprint reader did not answer in time." */
    PASSCODE_MESSAGE_BIOMETRIC_TIMEOUT PASSCODE_SWIFT_NAME(biometricTimeout) = 123,
    /** "The account was deleted." */
    PASSCODE_MESSAGE_ACCOUNT_DELETED PASSCODE_SWIFT_NAME(accountDeleted) = 124,
    /** "Passcode lock turned on": A security log entry of a setting change, in words. */
    PASSCODE_MESSAGE_LOCK_ON PASSCODE_SWIFT_NAME(lockOn) = 140,
    /** "Passcode lock turned off" */
    PASSCODE_MESSAGE_LOCK_OFF PASSCODE_SWIFT_NAME(lockOff) = 141,
    /** "Lock at launch turned on" */
    PASSCODE_MESSAGE_LOCK_AT_LAUNCH_ON PASSCODE_SWIFT_NAME(lockAtLaunchOn) = 142,
    /** "Lock at launch turned off" */
    PASSCODE_MESSAGE_LOCK_AT_LAUNCH_OFF PASSCODE_SWIFT_NAME(lockAtLaunchOff) = 143,
    /** "Biometric unlock turned on" */
    PASSCODE_MESSAGE_BIOMETRIC_UNLOCK_ON PASSCODE_SWIFT_NAME(biometricUnlockOn) = 144,
    /** "Biometric unlock turned off" */
    PASSCODE_MESSAGE_BIOMETRIC_UNLOCK_OFF PASSCODE_SWIFT_NAME(biometricUnlockOff) = 145,
    /** "Require biometrics on launch turned on" */
    PASSCODE_MESSAGE_REQUIRE_BIOMETRIC_ON PASSCODE_SWIFT_NAME(requireBiometricOn) = 146,
    /** "Require biometrics on launch turned off" */
    PASSCODE_MESSAGE_REQUIRE_BIOMETRIC_OFF PASSCODE_SWIFT_NAME(requireBiometricOff) = 147,
    /** "Two-factor authentication turned on" */
    PASSCODE_MESSAGE_TWO_FACTOR_ON PASSCODE_SWIFT_NAME(twoFactorOn) = 148,
    /** "Two-factor authentication turned off" */
    PASSCODE_MESSAGE_TWO_FACTOR_OFF PASSCODE_SWIFT_NAME(twoFactorOff) = 149,
    /** "Passcode after every launch turned on" */
    PASSCODE_MESSAGE_PASSCODE_EVERY_LAUNCH_ON PASSCODE_SWIFT_NAME(passcodeEveryLaunchOn) = 150,
    /** "Passcode after every launch turned off" */
    PASSCODE_MESSAGE_PASSCODE_EVERY_LAUNCH_OFF PASSCODE_SWIFT_NAME(passcodeEveryLaunchOff) = 151,
    /** "Lockout schedule set to %d" (%d: the number): The number is the schedule's value: 0 Apple's, 1 Android's, 2 the app's own. */
    PASSCODE_MESSAGE_LOCKOUT_SCHEDULE_SET PASSCODE_SWIFT_NAME(lockoutScheduleSet) = 152,
    /** "What too many failed attempts do set to %d" (%d: the number): The number is the action's value: 0 a reset is required, 1 logged out, 2 nothing more. */
    PASSCODE_MESSAGE_MAX_FAILURE_ACTION_SET PASSCODE_SWIFT_NAME(maxFailureActionSet) = 153,
    /** "Passcode length set to %d digit" (%d: the number) */
    PASSCODE_MESSAGE_PASSCODE_LENGTH_SET PASSCODE_SWIFT_NAME(passcodeLengthSet) = 154,
    /** "Reset code length set to %d digit" (%d: the number) */
    PASSCODE_MESSAGE_RESET_CODE_LENGTH_SET PASSCODE_SWIFT_NAME(resetCodeLengthSet) = 155,
    /** "Reset requests a day set to %d" (%d: the number) */
    PASSCODE_MESSAGE_RESET_REQUESTS_PER_DAY_SET PASSCODE_SWIFT_NAME(resetRequestsPerDaySet) = 156,
    /** "Auto-lock set to immediately" */
    PASSCODE_MESSAGE_AUTO_LOCK_IMMEDIATELY PASSCODE_SWIFT_NAME(autoLockImmediately) = 157,
    /** "Auto-lock set to %d second" (%d: the number) */
    PASSCODE_MESSAGE_AUTO_LOCK_SECONDS PASSCODE_SWIFT_NAME(autoLockSeconds) = 158,
    /** "Auto-lock set to %d minute" (%d: the number) */
    PASSCODE_MESSAGE_AUTO_LOCK_MINUTES PASSCODE_SWIFT_NAME(autoLockMinutes) = 159,
    /** "Auto-lock set to %d hour" (%d: the number) */
    PASSCODE_MESSAGE_AUTO_LOCK_HOURS PASSCODE_SWIFT_NAME(autoLockHours) = 160,
    /** "Reset code lifetime set to %d second" (%d: the number) */
    PASSCODE_MESSAGE_CODE_LIFETIME_SECONDS PASSCODE_SWIFT_NAME(codeLifetimeSeconds) = 161,
    /** "Reset code lifetime set to %d minute" (%d: the number) */
    PASSCODE_MESSAGE_CODE_LIFETIME_MINUTES PASSCODE_SWIFT_NAME(codeLifetimeMinutes) = 162,
    /** "Reset code lifetime set to %d hour" (%d: the number) */
    PASSCODE_MESSAGE_CODE_LIFETIME_HOURS PASSCODE_SWIFT_NAME(codeLifetimeHours) = 163,
    /** "Time between reset requests set to %d second" (%d: the number) */
    PASSCODE_MESSAGE_REQUEST_INTERVAL_SECONDS PASSCODE_SWIFT_NAME(requestIntervalSeconds) = 164,
    /** "Time between reset requests set to %d minute" (%d: the number) */
    PASSCODE_MESSAGE_REQUEST_INTERVAL_MINUTES PASSCODE_SWIFT_NAME(requestIntervalMinutes) = 165,
    /** "Time between reset requests set to %d hour" (%d: the number) */
    PASSCODE_MESSAGE_REQUEST_INTERVAL_HOURS PASSCODE_SWIFT_NAME(requestIntervalHours) = 166,
    /** "Account password changed" */
    PASSCODE_MESSAGE_ACCOUNT_PASSWORD_CHANGED PASSCODE_SWIFT_NAME(accountPasswordChanged) = 167,
    /** "Custom lockout schedule set" */
    PASSCODE_MESSAGE_CUSTOM_SCHEDULE_SET PASSCODE_SWIFT_NAME(customScheduleSet) = 168,
    /** "Custom lockout schedule removed" */
    PASSCODE_MESSAGE_CUSTOM_SCHEDULE_REMOVED PASSCODE_SWIFT_NAME(customScheduleRemoved) = 169,
    /** "A new passcode starts from the safe defaults:": Followed by the settings a new passcode put back, each in words, separated by commas. */
    PASSCODE_MESSAGE_DEFAULTS_RESTORED PASSCODE_SWIFT_NAME(defaultsRestored) = 170,
    /** "Passcode (%d digit):" (%d: the number): The login prompt (su, sudo, a screen locker); the number is the passcode's digits. A space follows it on the screen. */
    PASSCODE_MESSAGE_PAM_PASSCODE_PROMPT PASSCODE_SWIFT_NAME(pamPasscodePrompt) = 500,
    /** "The passcode is %d digit." (%d: the number) */
    PASSCODE_MESSAGE_PAM_WRONG_LENGTH PASSCODE_SWIFT_NAME(pamWrongLength) = 501,
    /** "Passcode: a reset is required after too many failures or a forgotten passcode (your password, or passcodectl reset as root)." */
    PASSCODE_MESSAGE_PAM_RESET_REQUIRED PASSCODE_SWIFT_NAME(pamResetRequired) = 502,
    /** "Passcode locked: try again in %d minute." (%d: the number) */
    PASSCODE_MESSAGE_PAM_LOCKED_MINUTES PASSCODE_SWIFT_NAME(pamLockedMinutes) = 503,
    /** "Passcode locked." */
    PASSCODE_MESSAGE_PAM_LOCKED PASSCODE_SWIFT_NAME(pamLocked) = 504,
    /** "Current passcode (%d digit):" (%d: the number): Changing the passcode with passwd (pam_chauthtok): the three prompts. */
    PASSCODE_MESSAGE_PAM_CURRENT_PROMPT PASSCODE_SWIFT_NAME(pamCurrentPrompt) = 505,
    /** "New passcode (%d digit):" (%d: the number) */
    PASSCODE_MESSAGE_PAM_NEW_PROMPT PASSCODE_SWIFT_NAME(pamNewPrompt) = 506,
    /** "Retype new passcode (%d digit):" (%d: the number) */
    PASSCODE_MESSAGE_PAM_RETYPE_PROMPT PASSCODE_SWIFT_NAME(pamRetypePrompt) = 507,
    /** "A passcode is %d digit." (%d: the number) */
    PASSCODE_MESSAGE_PAM_CHANGE_WRONG_LENGTH PASSCODE_SWIFT_NAME(pamChangeWrongLength) = 508,
    /** "The passcodes do not match." */
    PASSCODE_MESSAGE_PAM_MISMATCH PASSCODE_SWIFT_NAME(pamMismatch) = 509,
    /** "Only root sets a first passcode (passcodectl set)." */
    PASSCODE_MESSAGE_PAM_ONLY_ROOT_SETS PASSCODE_SWIFT_NAME(pamOnlyRootSets) = 510,
    /** "The passcode was not changed: it is too easy to guess." */
    PASSCODE_MESSAGE_PAM_TOO_WEAK PASSCODE_SWIFT_NAME(pamTooWeak) = 511,
    /** "The passcode was not changed." */
    PASSCODE_MESSAGE_PAM_NOT_CHANGED PASSCODE_SWIFT_NAME(pamNotChanged) = 512,
    /** "Passcode (%d digit), or touch the reader and press Enter:" (%d: the number): The login prompt with the option fingerprint, when a finger can be read now: a match lets the person in once Enter is pressed. A space follows it on the screen. */
    PASSCODE_MESSAGE_PAM_PASSCODE_OR_FINGER_PROMPT PASSCODE_SWIFT_NAME(pamPasscodeOrFingerPrompt) = 513,
    /** "Touch the fingerprint reader." */
    PASSCODE_MESSAGE_PAM_TOUCH_READER PASSCODE_SWIFT_NAME(pamTouchReader) = 514,
    /** "The finger did not match: use the passcode." */
    PASSCODE_MESSAGE_PAM_FINGER_NO_MATCH PASSCODE_SWIFT_NAME(pamFingerNoMatch) = 515
} passcode_message;
/* MESSAGES END */

/**
 * A user's login store as a greeter or a screen locker draws it, without parsing text: what
 * passcode_user_lockout() answers, the State property of passcoded's login objects
 * (org.libpasscode.Passcode1.Login) and the `state:` field of pam_passcode's PAM_PASSCODE_STATE.
 */
typedef PASSCODE_CLOSED_ENUM(passcode_login_state, LoginState) {
    /** A passcode is set and may be tried now. */
    PASSCODE_LOGIN_STATE_OPEN PASSCODE_SWIFT_NAME(open) = 0,
    /** Locked out after wrong passcodes: none is tried until the lockout ends (the password still works). */
    PASSCODE_LOGIN_STATE_LOCKED_OUT PASSCODE_SWIFT_NAME(lockedOut) = 1,
    /** Only a reset lets a passcode in again (root's passcodectl reset, or the emailed reset code). */
    PASSCODE_LOGIN_STATE_RESET_REQUIRED PASSCODE_SWIFT_NAME(resetRequired) = 2,
    /** No passcode is set. */
    PASSCODE_LOGIN_STATE_NO_PASSCODE PASSCODE_SWIFT_NAME(noPasscode) = 3,
    /** pam_passcode only: passcoded could not be asked (unreachable, or the caller may not name the user). */
    PASSCODE_LOGIN_STATE_UNAVAILABLE PASSCODE_SWIFT_NAME(unavailable) = 4
} passcode_login_state;
/* ENUMS END */

#endif
