/// Finding a member of a small JSON object by comparing names instead of hashing.
///
/// A `Dictionary` look-up hashes the name (SipHash, a few hundred instructions for a short
/// string); the objects a request or a patch path walks through have a handful of members,
/// and names of up to 15 UTF-8 bytes are compared as two machine words. So an object of
/// up to ``smallObjectLimit`` members is searched by comparing each name, and a larger
/// one is hashed as before.
///
/// ```swift
/// let params: [String: JSONValue] = ["intent": "incrementTapped", "target": "/counter"]
/// params.member("intent")   // "incrementTapped", without hashing "intent"
/// ```
extension Dictionary where Key == String {
  /// Objects with at most this many members are searched by comparing names.
  public static var smallObjectLimit: Int { 8 }

  /// The value named `name`, or nil: compared name by name in a small object, hashed in a
  /// larger one.
  @inlinable
  public func member(_ name: String) -> Value? {
    guard let index = memberIndex(name) else { return nil }
    return values[index]
  }

  /// The position of the member named `name`, or nil, as ``member(_:)`` finds it.
  @inlinable
  public func memberIndex(_ name: String) -> Index? {
    guard count <= Self.smallObjectLimit else { return index(forKey: name) }
    var index = startIndex
    while index != endIndex {
      if keys[index] == name { return index }
      formIndex(after: &index)
    }
    return nil
  }
}
