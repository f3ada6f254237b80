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
    for (index, operation) in operations.enumerated() {
      do {
        result = try operation.apply(to: result)
      } catch let error as JSONPatchError {
        throw JSONPatchError.operationFailed(index: index, operation.op, error.reason)
      } catch let error as JSONPointerError {
        throw JSONPatchError.operationFailed(index: index, operation.op, error.description)
      }
    }
    return result
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

  func apply(to document: JSONValue) throws -> JSONValue {
    switch self {
    case .add(let path, let value):
      return try Self.add(value, at: path, in: document)
    case .remove(let path):
      return try Self.remove(at: path, in: document).document
    case .replace(let path, let value):
      _ = try path.resolve(in: document)
      return try Self.set(value, at: path, in: document)
    case .move(let from, let to):
      if from == to { return document }
      if to.tokens.count > from.tokens.count, Array(to.tokens.prefix(from.tokens.count)) == from.tokens {
        throw JSONPatchError.reason("cannot move '\(from)' into its own child '\(to)'")
      }
      let (removed, value) = try Self.remove(at: from, in: document)
      return try Self.add(value, at: to, in: removed)
    case .copy(let from, let to):
      return try Self.add(try from.resolve(in: document), at: to, in: document)
    case .test(let path, let expected):
      let actual = try path.resolve(in: document)
      guard actual == expected else { throw JSONPatchError.reason("the value at '\(path)' is not the expected value") }
      return document
    }
  }

  /// Inserts into an array (shifting later elements) or sets an object member.
  private static func add(_ value: JSONValue, at path: JSONPointer, in document: JSONValue) throws -> JSONValue {
    try put(value, at: path, in: document, inserting: true)
  }

  /// Replaces the value at `path`, which must exist (checked by the caller).
  private static func set(_ value: JSONValue, at path: JSONPointer, in document: JSONValue) throws -> JSONValue {
    try put(value, at: path, in: document, inserting: false)
  }

  /// Writes `value` at `path`: into an object member either way; into an array by inserting
  /// (where `-` means the end) or by replacing an element.
  private static func put(_ value: JSONValue, at path: JSONPointer, in document: JSONValue, inserting: Bool) throws -> JSONValue {
    guard let (parent, last) = path.parentAndLast else { return value }
    return try modify(parent, in: document) { container in
      switch container {
      case .object(var members):
        members[last] = value
        container = .object(members)
      case .array(var elements):
        if inserting && last == "-" {
          elements.append(value)
        } else {
          let index = try JSONPointer.arrayIndex(last, count: elements.count, at: path)
          if inserting {
            guard index <= elements.count else { throw JSONPatchError.reason("index \(index) is past the end of '\(parent)'") }
            elements.insert(value, at: index)
          } else {
            elements[index] = value
          }
        }
        container = .array(elements)
      default:
        throw JSONPointerError.notAContainer(parent, container.typeName)
      }
    }
  }

  private static func remove(at path: JSONPointer, in document: JSONValue) throws -> (document: JSONValue, removed: JSONValue) {
    guard let (parent, last) = path.parentAndLast else { throw JSONPatchError.reason("cannot remove the whole document") }
    let removed = try path.resolve(in: document)
    let result = try modify(parent, in: document) { container in
      switch container {
      case .object(var members):
        members[last] = nil
        container = .object(members)
      case .array(var elements):
        let index = try JSONPointer.arrayIndex(last, count: elements.count, at: path)
        elements.remove(at: index)
        container = .array(elements)
      default:
        throw JSONPointerError.notAContainer(parent, container.typeName)
      }
    }
    return (result, removed)
  }

  /// Rebuilds `document` with the container at `path` changed by `change`.
  private static func modify(
    _ path: JSONPointer, in document: JSONValue, _ change: (inout JSONValue) throws -> Void
  ) throws -> JSONValue {
    guard let first = path.tokens.first else {
      var copy = document
      try change(&copy)
      return copy
    }
    let rest = JSONPointer(tokens: Array(path.tokens.dropFirst()))
    switch document {
    case .object(var members):
      guard let child = members[first] else { throw JSONPointerError.notFound(JSONPointer(tokens: [first])) }
      members[first] = try modify(rest, in: child, change)
      return .object(members)
    case .array(var elements):
      let index = try JSONPointer.arrayIndex(first, count: elements.count, at: JSONPointer(tokens: [first]))
      guard index < elements.count else { throw JSONPointerError.notFound(JSONPointer(tokens: [first])) }
      elements[index] = try modify(rest, in: elements[index], change)
      return .array(elements)
    default:
      throw JSONPointerError.notAContainer(.root, document.typeName)
    }
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
