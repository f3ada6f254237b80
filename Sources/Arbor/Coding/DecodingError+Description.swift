import ArborJSON

extension CodingKey {
  /// The key as a JSON Pointer token: an array index or a member name.
  var pointerToken: String { intValue.map(String.init) ?? stringValue }
}

extension DecodingError {
  /// The coding path of the value that could not be decoded.
  var codingKeys: [any CodingKey] {
    switch self {
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
      .dataCorrupted(let context):
      return context.codingPath
    @unknown default:
      return []
    }
  }

  /// Where the error happened, as a JSON Pointer from the decoded value, and what went
  /// wrong, in words a user of the JSON can act on.
  var location: (path: String, reason: String) {
    func pointer(_ keys: [any CodingKey]) -> String {
      JSONPointer(tokens: keys.map(\.pointerToken)).description
    }
    switch self {
    case .typeMismatch(let type, let context):
      // The decoder's sentence ("Expected to decode String but found number instead.")
      // says the type twice; what was found is the part worth keeping.
      let said = context.debugDescription
      if said.hasPrefix("Expected to decode "), let found = said.range(of: " but found "), said.hasSuffix(" instead.") {
        let what = said[found.upperBound..<said.index(said.endIndex, offsetBy: -" instead.".count)]
        return (pointer(context.codingPath), "expected \(type), found \(what)")
      }
      return (pointer(context.codingPath), "expected \(type); \(said)")
    case .valueNotFound(let type, let context):
      return (pointer(context.codingPath), "expected \(type), found null or nothing")
    case .keyNotFound(let key, let context):
      return (pointer(context.codingPath), "missing '\(key.stringValue)'")
    case .dataCorrupted(let context):
      let underlying = context.underlyingError.map { " (\($0))" } ?? ""
      return (pointer(context.codingPath), context.debugDescription + (context.codingPath.isEmpty ? underlying : ""))
    @unknown default:
      return ("", "\(self)")
    }
  }
}
