import ArborJSON

// JSON Patch (RFC 6902) applied to a JSON value. The input: a document's JSON text, a
// newline, then a patch's JSON text (an array of operations).
//
// Properties:
// - reading a patch from its parsed form (`JSONPatch(json:)`) and decoding it
//   (`JSONValueDecoder`) accept the same patches and read them alike; an accepted patch
//   encodes and reads back as itself;
// - applying never crashes; applying to a copy and in place succeed or fail together,
//   with the same result; so does a plain reference implementation of RFC 6902 below;
// - a result re-encodes and re-parses to itself;
// - `JSONPatch.difference(from: document, to: result)` applied to the document gives the result.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = inputBytes(data, size)
  guard let newline = bytes.firstIndex(of: 0x0A),
    let document = try? JSONValue(parsing: bytes[..<newline]),
    let patchValue = try? JSONValue(parsing: bytes[(newline + 1)...])
  else { return 0 }

  let read = try? JSONPatch(json: patchValue)
  let decoded = try? JSONValueDecoder().decode(JSONPatch.self, from: patchValue)
  check(read == decoded, "JSONPatch(json:) and the decoder read \(show(canonical(patchValue))) otherwise: \(String(describing: read)) against \(String(describing: decoded))")
  guard let patch = read else { return 0 }
  if let encoded = try? JSONValueEncoder().encode(patch) {
    check((try? JSONPatch(json: encoded)) == patch, "the patch \(show(canonical(patchValue))) encodes as \(show(canonical(encoded))), which reads otherwise")
  } else {
    fatalError("the patch \(show(canonical(patchValue))) does not encode")
  }

  let copied = try? patch.apply(to: document)
  var inPlace = document
  let appliedInPlace = (try? patch.apply(to: &inPlace)) != nil
  check(appliedInPlace == (copied != nil), "applied in place: \(appliedInPlace), to a copy: \(copied != nil): \(show(bytes))")
  if let copied { check(canonical(inPlace) == canonical(copied), "in place and on a copy differ: \(show(bytes))") }
  let reference = referenceApply(patch.operations, to: document)
  check(
    reference.map(canonical) == copied.map(canonical),
    "the reference gives \(reference.map { show(canonical($0)) } ?? "a failure"), JSONPatch \(copied.map { show(canonical($0)) } ?? "a failure"): \(show(bytes))")

  guard let result = copied else { return 0 }
  let written = canonical(result)
  check((try? JSONValue(parsing: written)).map(canonical) == written, "the result \(show(written)) does not read back as itself")
  let difference = JSONPatch(JSONPatch.difference(from: document, to: result, isAtomic: { _ in false }, expand: { $0 }))
  let redone = try? difference.apply(to: document)
  check(redone == result, "the difference \(String(describing: difference)) does not turn the document into \(show(written)): \(show(bytes))")
  return 0
}

// MARK: - A plain reference: RFC 6902 over RFC 6901 pointers, copying values as it goes.

/// An array index token: `0`, or digits without a leading zero.
private func referenceIndex(_ token: String) -> Int? {
  guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), token == "0" || token.utf8.first != 0x30 else { return nil }
  return Int(token)
}

private func referenceGet(_ tokens: ArraySlice<String>, in value: JSONValue) -> JSONValue? {
  guard let token = tokens.first else { return value }
  switch value {
  case .object(let members): return members[token].flatMap { referenceGet(tokens.dropFirst(), in: $0) }
  case .array(let elements):
    guard let index = referenceIndex(token), index < elements.count else { return nil }
    return referenceGet(tokens.dropFirst(), in: elements[index])
  default: return nil
  }
}

/// The value with the container at `tokens` replaced by `change`'s result (nil: failed).
private func referenceChange(
  _ tokens: ArraySlice<String>, in value: JSONValue, _ change: (JSONValue) -> JSONValue?
) -> JSONValue? {
  guard let token = tokens.first else { return change(value) }
  switch value {
  case .object(var members):
    guard let child = members[token], let changed = referenceChange(tokens.dropFirst(), in: child, change) else { return nil }
    members[token] = changed
    return .object(members)
  case .array(var elements):
    guard let index = referenceIndex(token), index < elements.count,
      let changed = referenceChange(tokens.dropFirst(), in: elements[index], change)
    else { return nil }
    elements[index] = changed
    return .array(elements)
  default: return nil
  }
}

private func referenceAdd(_ value: JSONValue, at tokens: [String], in document: JSONValue) -> JSONValue? {
  guard let last = tokens.last else { return value }
  return referenceChange(tokens.dropLast(), in: document) { parent in
    switch parent {
    case .object(var members):
      members[last] = value
      return .object(members)
    case .array(var elements):
      if last == "-" {
        elements.append(value)
      } else {
        guard let index = referenceIndex(last), index <= elements.count else { return nil }
        elements.insert(value, at: index)
      }
      return .array(elements)
    default: return nil
    }
  }
}

private func referenceRemove(at tokens: [String], in document: JSONValue) -> JSONValue? {
  guard let last = tokens.last else { return nil }
  return referenceChange(tokens.dropLast(), in: document) { parent in
    switch parent {
    case .object(var members):
      guard members.removeValue(forKey: last) != nil else { return nil }
      return .object(members)
    case .array(var elements):
      guard let index = referenceIndex(last), index < elements.count else { return nil }
      elements.remove(at: index)
      return .array(elements)
    default: return nil
    }
  }
}

private func referenceApply(_ operations: [JSONPatchOperation], to document: JSONValue) -> JSONValue? {
  var document = document
  for operation in operations {
    switch operation {
    case .add(let path, let value):
      guard let next = referenceAdd(value, at: path.tokens, in: document) else { return nil }
      document = next
    case .remove(let path):
      guard let next = referenceRemove(at: path.tokens, in: document) else { return nil }
      document = next
    case .replace(let path, let value):
      guard referenceGet(path.tokens[...], in: document) != nil else { return nil }
      if path.tokens.isEmpty {
        document = value
      } else {
        guard let removed = referenceRemove(at: path.tokens, in: document),
          let next = referenceAdd(value, at: path.tokens, in: removed)
        else { return nil }
        document = next
      }
    case .move(let from, let to):
      guard let value = referenceGet(from.tokens[...], in: document) else { return nil }
      if from == to { continue }
      if to.tokens.count > from.tokens.count, Array(to.tokens.prefix(from.tokens.count)) == from.tokens { return nil }
      guard let removed = referenceRemove(at: from.tokens, in: document),
        let next = referenceAdd(value, at: to.tokens, in: removed)
      else { return nil }
      document = next
    case .copy(let from, let to):
      guard let value = referenceGet(from.tokens[...], in: document),
        let next = referenceAdd(value, at: to.tokens, in: document)
      else { return nil }
      document = next
    case .test(let path, let expected):
      guard referenceGet(path.tokens[...], in: document) == expected else { return nil }
    }
  }
  return document
}
