/// A key of a model's encoded state: a property name, or `id`.
public struct _StateCodingKey: CodingKey, Sendable {
  public let stringValue: String
  public var intValue: Int? { nil }

  @inlinable
  public init(_ name: String) { stringValue = name }
  public init?(stringValue: String) { self.stringValue = stringValue }
  public init?(intValue: Int) { nil }

  static let id = _StateCodingKey("id")
}
