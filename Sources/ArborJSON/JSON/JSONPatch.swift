/// A JSON Patch (RFC 6902): a sequence of operations that turns one JSON document into
/// another.
///
/// ```swift
/// let patch: JSONPatch = [.replace(try JSONPointer("/count"), 4)]
/// let next = try patch.apply(to: ["count": 3])    // ["count": 4]
/// ```
public struct JSONPatch: Sendable, Hashable, Codable, ExpressibleByArrayLiteral {
  public var operations: [JSONPatchOperation]

  public init(_ operations: [JSONPatchOperation]) { self.operations = operations }
  public init(arrayLiteral elements: JSONPatchOperation...) { self.operations = elements }

  public init(from decoder: any Decoder) throws {
    operations = try [JSONPatchOperation](from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try operations.encode(to: encoder)
  }

  /// Applies the operations in order. All or nothing: if one fails, the error says which
  /// and why, and no change is returned.
  public func apply(to document: JSONValue) throws -> JSONValue {
    var result = document
    try apply(to: &result)
    return result
  }

  /// Applies the operations in order to `document` in place. When `document` is the only
  /// reference to its containers, only what the operations touch is written: a patch of one
  /// member of a large array costs no copy of the array. If an operation fails, the error
  /// says which and why, and `document` may hold the operations before it: apply to a copy
  /// when that matters.
  ///
  /// ```swift
  /// var state: JSONValue = ["count": 1]
  /// try JSONPatch([.replace(try JSONPointer("/count"), 2)]).apply(to: &state)
  /// ```
  public func apply(to document: inout JSONValue) throws {
    for (index, operation) in operations.enumerated() {
      do {
        try operation.apply(to: &document)
      } catch let error as JSONPatchError {
        throw JSONPatchError.operationFailed(index: index, operation.op, error.reason)
      } catch let error as JSONPointerError {
        throw JSONPatchError.operationFailed(index: index, operation.op, error.description)
      }
    }
  }
}

/// One operation of a JSON Patch.
public enum JSONPatchOperation: Sendable, Hashable {
  case add(JSONPointer, JSONValue)
  case remove(JSONPointer)
  case replace(JSONPointer, JSONValue)
  case move(from: JSONPointer, to: JSONPointer)
  case copy(from: JSONPointer, to: JSONPointer)
  case test(JSONPointer, JSONValue)

  /// The operation's name as written in JSON.
  public var op: String {
    switch self {
    case .add: return "add"
    case .remove: return "remove"
    case .replace: return "replace"
    case .move: return "move"
    case .copy: return "copy"
    case .test: return "test"
    }
  }

  /// The operation's target path.
  public var path: JSONPointer {
    switch self {
    case .add(let path, _), .remove(let path), .replace(let path, _), .test(let path, _): return path
    case .move(_, let to), .copy(_, let to): return to
    }
  }

  func apply(to document: inout JSONValue) throws {
    switch self {
    case .add(let path, let value):
      try Self.put(value, at: path, in: &document, inserting: true)
    case .remove(let path):
      _ = try Self.remove(at: path, in: &document)
    case .replace(let path, let value):
      // Put where the value must already be (no separate look-up first); a failure says
      // what resolving the path says.
      do {
        try Self.put(value, at: path, in: &document, inserting: false, mustExist: true)
      } catch {
        _ = try path.resolve(in: document)
        throw error
      }
    case .move(let from, let to):
      if from == to {
        // A move onto itself changes nothing, but its `from` must exist (RFC 6902, 4.4).
        _ = try from.resolve(in: document)
        return
      }
      if to.tokens.count > from.tokens.count, Array(to.tokens.prefix(from.tokens.count)) == from.tokens {
        throw JSONPatchError.reason("cannot move '\(from)' into its own child '\(to)'")
      }
      let value = try Self.remove(at: from, in: &document)
      try Self.put(value, at: to, in: &document, inserting: true)
    case .copy(let from, let to):
      try Self.put(try from.resolve(in: document), at: to, in: &document, inserting: true)
    case .test(let path, let expected):
      let actual = try path.resolve(in: document)
      guard actual == expected else { throw JSONPatchError.reason("the value at '\(path)' is not the expected value") }
    }
  }

  /// Writes `value` at `path`: into an object member either way; into an array by inserting
  /// (where `-` means the end) or by replacing an element.
  private static func put(
    _ value: JSONValue, at path: JSONPointer, in document: inout JSONValue, inserting: Bool, mustExist: Bool = false
  ) throws {
    guard let last = path.tokens.last else {
      document = value
      return
    }
    let parentTokens = path.tokens.dropLast()
    try modify(parentTokens, in: &document) { container in
      if var members = container.takeObject() {
        defer { container = .object(members) }
        if mustExist {
          guard let index = members.memberIndex(last) else { throw JSONPointerError.notFound(path) }
          members.values[index] = value
        } else {
          members[last] = value
        }
      } else if var elements = container.takeArray() {
        defer { container = .array(elements) }
        if inserting && last == "-" {
          elements.append(value)
        } else {
          let index = try JSONPointer.arrayIndex(last, count: elements.count, at: path)
          if inserting {
            guard index <= elements.count else {
              throw JSONPatchError.reason("index \(index) is past the end of '\(JSONPointer(tokens: Array(parentTokens)))'")
            }
            elements.insert(value, at: index)
          } else {
            guard index < elements.count else { throw JSONPointerError.notFound(path) }
            elements[index] = value
          }
        }
      } else {
        throw JSONPointerError.notAContainer(JSONPointer(tokens: Array(parentTokens)), container.typeName)
      }
    }
  }

  /// Removes the value at `path` and returns it.
  private static func remove(at path: JSONPointer, in document: inout JSONValue) throws -> JSONValue {
    guard let (parent, last) = path.parentAndLast else { throw JSONPatchError.reason("cannot remove the whole document") }
    let removed = try path.resolve(in: document)
    try modify(parent.tokens[...], in: &document) { container in
      if var members = container.takeObject() {
        members[last] = nil
        container = .object(members)
      } else if var elements = container.takeArray() {
        defer { container = .array(elements) }
        let index = try JSONPointer.arrayIndex(last, count: elements.count, at: path)
        elements.remove(at: index)
      } else {
        throw JSONPointerError.notAContainer(parent, container.typeName)
      }
    }
    return removed
  }

  /// Runs `change` on the container at `tokens` inside `document`, in place: each container
  /// on the way is taken out of its parent while it is changed, so that a container held
  /// only by the document is changed without a copy.
  private static func modify(
    _ tokens: ArraySlice<String>, in document: inout JSONValue, _ change: (inout JSONValue) throws -> Void
  ) throws {
    guard let first = tokens.first else {
      try change(&document)
      return
    }
    let rest = tokens.dropFirst()
    if var members = document.takeObject() {
      defer { document = .object(members) }
      guard let index = members.memberIndex(first) else { throw JSONPointerError.notFound(JSONPointer(tokens: [first])) }
      try modify(rest, in: &members.values[index], change)
    } else if var elements = document.takeArray() {
      defer { document = .array(elements) }
      let index = try JSONPointer.arrayIndex(first, count: elements.count, at: JSONPointer(tokens: [first]))
      guard index < elements.count else { throw JSONPointerError.notFound(JSONPointer(tokens: [first])) }
      try modify(rest, in: &elements[index], change)
    } else {
      throw JSONPointerError.notAContainer(.root, document.typeName)
    }
  }
}

extension JSONValue {
  /// The members of an object, taken out: the value is left `null`, so that the members
  /// are held once and change without a copy. Nil (and nothing taken) for another kind.
  fileprivate mutating func takeObject() -> [String: JSONValue]? {
    guard case .object(let members) = self else { return nil }
    self = .null
    return members
  }

  /// The elements of an array, taken out like ``takeObject()``.
  fileprivate mutating func takeArray() -> [JSONValue]? {
    guard case .array(let elements) = self else { return nil }
    self = .null
    return elements
  }
}

extension JSONPatchOperation: Codable {
  private enum CodingKeys: String, CodingKey { case op, path, value, from }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let op = try container.decode(String.self, forKey: .op)
    let path = try JSONPointer(container.decode(String.self, forKey: .path))
    func value() throws -> JSONValue {
      guard container.contains(.value) else {
        throw DecodingError.keyNotFound(
          CodingKeys.value, .init(codingPath: decoder.codingPath, debugDescription: "'\(op)' needs a 'value'"))
      }
      return try container.decode(JSONValue.self, forKey: .value)
    }
    func from() throws -> JSONPointer { try JSONPointer(container.decode(String.self, forKey: .from)) }
    switch op {
    case "add": self = .add(path, try value())
    case "remove": self = .remove(path)
    case "replace": self = .replace(path, try value())
    case "move": self = .move(from: try from(), to: path)
    case "copy": self = .copy(from: try from(), to: path)
    case "test": self = .test(path, try value())
    default:
      throw DecodingError.dataCorruptedError(forKey: .op, in: container, debugDescription: "unknown operation '\(op)'")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(op, forKey: .op)
    try container.encode(path.description, forKey: .path)
    switch self {
    case .add(_, let value), .replace(_, let value), .test(_, let value): try container.encode(value, forKey: .value)
    case .move(let from, _), .copy(let from, _): try container.encode(from.description, forKey: .from)
    case .remove: break
    }
  }
}

/// Why a JSON Patch could not be applied.
public enum JSONPatchError: Error, Equatable, CustomStringConvertible {
  case reason(String)
  case operationFailed(index: Int, String, String)

  var reason: String {
    switch self {
    case .reason(let text): return text
    case .operationFailed(_, _, let text): return text
    }
  }

  public var description: String {
    switch self {
    case .reason(let text): return text
    case .operationFailed(let index, let op, let reason): return "operation \(index) ('\(op)') failed: \(reason)"
    }
  }
}

extension JSONPatch {
  /// Reads a patch from its parsed JSON form (RFC 6902) directly, without a decoder: what
  /// a store reads back by the thousand at start. Malformed operations are refused with
  /// the reason, as decoding does.
  ///
  /// ```swift
  /// let patch = try JSONPatch(json: JSONValue(parsing: #"[{"op":"remove","path":"/a"}]"#))
  /// ```
  public init(json: JSONValue) throws(JSONPatchError) {
    guard case .array(let elements) = json else { throw .reason("a patch is an array of operations, not \(json.typeName)") }
    var operations: [JSONPatchOperation] = []
    operations.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      guard case .object(let members) = element else { throw .reason("operation \(index) is \(element.typeName), not an object") }
      func pointer(_ key: String) throws(JSONPatchError) -> JSONPointer {
        guard case .string(let text)? = members[key] else { throw .reason("operation \(index) needs a '\(key)' string") }
        do {
          return try JSONPointer(text)
        } catch {
          throw .reason("operation \(index): '\(key)' is not a JSON Pointer: \(error)")
        }
      }
      func value() throws(JSONPatchError) -> JSONValue {
        guard let value = members["value"] else { throw .reason("operation \(index) needs a 'value'") }
        return value
      }
      guard case .string(let op)? = members["op"] else { throw .reason("operation \(index) needs an 'op' string") }
      switch op {
      case "add": operations.append(.add(try pointer("path"), try value()))
      case "remove": operations.append(.remove(try pointer("path")))
      case "replace": operations.append(.replace(try pointer("path"), try value()))
      case "move": operations.append(.move(from: try pointer("from"), to: try pointer("path")))
      case "copy": operations.append(.copy(from: try pointer("from"), to: try pointer("path")))
      case "test": operations.append(.test(try pointer("path"), try value()))
      default: throw .reason("operation \(index) has the unknown op '\(op)'")
      }
    }
    self.init(operations)
  }
}
