// The public C enums (Sources/libpasscode/Passcode/Types/types.h) in Swift. Each is a frozen Swift enum with
// its C values, and its cases listed in PublicEnumCases.swift (generated from the header).

extension CaseIterable where Self: RawRepresentable, Self.RawValue == Int32 {
    /// The case whose value is `raw`, or nil when there is none. A number from outside (the C
    /// API, the store file) is read with this: a C enum's `init(rawValue:)` never fails, and a
    /// switch over a value outside its cases would stop the process.
    public init?(checked raw: Int32) {
        guard let known = Self.allCases.first(where: { $0.rawValue == raw }) else { return nil }
        self = known
    }
}
