import ArborJSON
import ArborRPC

/// A method's parameters, read by name with errors that name the parameter and the type
/// it should have.
struct Params {
  let method: String
  let members: [String: JSONValue]

  /// Parameters must be an object (or absent); names outside `accepted` are refused.
  init(_ request: RPCRequest, accepted: [String]) throws(RPCError) {
    method = request.method
    switch request.params {
    case nil: members = [:]
    case .object(let object)?: members = object
    case let other?:
      throw RPCError.invalidParams(
        "\(request.method) takes its parameters by name, as an object, not \(other.typeName)",
        data: ["name": .string(ArborError.invalidParameter.name), "accepted": .array(accepted.map(JSONValue.string))])
    }
    if let unknown = members.keys.sorted().first(where: { !accepted.contains($0) }) {
      let list = accepted.isEmpty ? "it takes none" : "it takes " + accepted.joined(separator: ", ")
      throw RPCError.invalidParams(
        "\(method) has no parameter '\(unknown)' (\(list))",
        data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(unknown), "accepted": .array(accepted.map(JSONValue.string))])
    }
  }

  func wrongType(_ key: String, expected: String, found: JSONValue) -> RPCError {
    RPCError.invalidParams(
      "parameter '\(key)' of \(method) must be \(expected), not \(found.typeName)",
      data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(key), "expected": .string(expected)])
  }

  func missing(_ key: String, expected: String) -> RPCError {
    RPCError.invalidParams(
      "\(method) needs the parameter '\(key)' (\(expected))",
      data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(key), "expected": .string(expected)])
  }

  func string(_ key: String) throws(RPCError) -> String? {
    switch members[key] {
    case nil, .null?: return nil
    case .string(let text)?: return text
    case let other?: throw wrongType(key, expected: "a string", found: other)
    }
  }

  func requiredString(_ key: String) throws(RPCError) -> String {
    guard let text = try string(key) else { throw missing(key, expected: "a string") }
    return text
  }

  func revision(_ key: String) throws(RPCError) -> UInt64? {
    switch members[key] {
    case nil, .null?: return nil
    case .int(let number)? where number >= 0: return UInt64(number)
    case let other?: throw wrongType(key, expected: "a revision (an integer ≥ 0)", found: other)
    }
  }

  func integer(_ key: String) throws(RPCError) -> Int? {
    switch members[key] {
    case nil, .null?: return nil
    case .int(let number)?: return Int(number)
    case let other?: throw wrongType(key, expected: "an integer", found: other)
    }
  }

  func pointer(_ key: String) throws(RPCError) -> JSONPointer {
    guard let text = try string(key) else { return .root }
    do {
      return try JSONPointer(text)
    } catch {
      throw RPCError.invalidParams(
        "parameter '\(key)' of \(method) is not a JSON Pointer: \(error)",
        data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(key), "expected": "a JSON Pointer such as \"/counters/0\""])
    }
  }

  func strings(_ key: String) throws(RPCError) -> [String]? {
    switch members[key] {
    case nil, .null?: return nil
    case .array(let items)?:
      var texts: [String] = []
      for item in items {
        guard case .string(let text) = item else { throw wrongType(key, expected: "an array of strings", found: item) }
        texts.append(text)
      }
      return texts
    case let other?: throw wrongType(key, expected: "an array of strings", found: other)
    }
  }
}
