// Names of the rows in the `settings` and `state` tables.

enum SettingKey {
    static let lockEnabled = "lock_enabled"
    static let length = "passcode_length"
    static let autoLockSeconds = "auto_lock_seconds"
    static let lockAtLaunch = "lock_at_launch"
    static let schedule = "lockout_schedule"
    static let customSchedule = "lockout_custom"
    static let maxFailureAction = "max_failure_action"
    static let biometricEnabled = "biometric_enabled"
    static let requireBiometricOnLaunch = "require_biometric_on_launch"
    static let twoFactorEnabled = "two_factor_enabled"
    static let lastPasswordChangeMs = "last_password_change_wall_ms"
    static let resetCodeLength = "reset_code_length"
    static let resetCodeLifetime = "reset_code_lifetime_seconds"
    static let resetRequestInterval = "reset_request_interval_seconds"
    static let resetRequestsPerDay = "reset_requests_per_day"
}

enum StateKey {
    /// Attempts started (write-ahead) and attempts cleared by a success: failures = difference.
    static let attemptSeq = "attempt_seq"
    static let clearedSeq = "cleared_seq"
    static let lockoutBootID = "lockout_boot_id"
    static let lockoutStartMs = "lockout_start_ms"
    static let lockoutDurationMs = "lockout_duration_ms"
    static let resetRequired = "reset_required"
    static let locked = "locked"
    static let lockReason = "lock_reason"
    static let backgroundBootID = "background_boot_id"
    static let backgroundMs = "background_ms"
    static let lastPasscodeBootID = "last_passcode_boot_id"
    static let lastPasscodeMs = "last_passcode_ms"
    static let biometricFailures = "biometric_failures"
    static let launchNeedsPasscode = "launch_needs_passcode"
    static let biometricAvailable = "biometric_available"
    static let biometricKind = "biometric_kind"
}
