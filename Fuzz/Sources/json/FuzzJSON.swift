import ArborJSON

// The JSON reader (`JSONValue(parsing:)`) and the two partial readers built on its parser:
// `readKnownMembers` (a request's envelope) and `numberTexts` (an id's digits).
//
// Properties, for any bytes:
// - reading never crashes, and an error's offset lies within the text;
// - a text that reads is valid UTF-8 (RFC 8259), and reads the same through the generic
//   collection path as through the array path;
// - a value written back reads back as itself, and writing that gives the same bytes;
// - `readKnownMembers` accepts only objects whose members are known names, each once,
//   and hands over exactly their values;
// - `numberTexts` gives, for each number `id`, digits that read as that number.

private let names = ["jsonrpc", "method", "params", "id", "subscription"]
private let memberNames = JSONMemberNames(names)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = inputBytes(data, size)
  let parsed: JSONValue?
  do {
    parsed = try JSONValue(parsing: bytes)
  } catch {
    check(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside \(bytes.count) bytes: \(error)")
    parsed = nil
  }

  // The generic path (a collection without contiguous storage) copies, then reads alike.
  let generic = try? JSONValue(parsing: bytes.lazy.map { $0 })
  check(generic.map(canonical) == parsed.map(canonical), "the generic reader disagrees on \(show(bytes))")

  checkKnownMembers(bytes, parsed)
  checkNumberTexts(bytes, parsed)

  guard let value = parsed else { return 0 }
  check(String(validating: bytes, as: UTF8.self) != nil, "invalid UTF-8 was read: \(bytes)")

  let written = canonical(value)
  let reread: JSONValue
  do {
    reread = try JSONValue(parsing: written)
  } catch {
    fatalError("the written value \(show(written)) does not read back: \(error)")
  }
  check(reread == value, "the value read back differs: \(show(written))")
  check(canonical(reread) == written, "writing the value read back gives other bytes: \(show(written))")
  // The Codable bridge gives the same value.
  let decoded = try? JSONValueDecoder().decode(JSONValue.self, from: value)
  check(decoded.map(canonical) == written, "JSONValueDecoder changes \(show(written))")
  let encoded = try? JSONValueEncoder().encode(value)
  check(encoded.map(canonical) == written, "JSONValueEncoder changes \(show(written))")
  return 0
}

private func checkKnownMembers(_ bytes: [UInt8], _ parsed: JSONValue?) {
  var seen: [Int: JSONValue] = [:]
  var twice = false
  let read = JSONValue.readKnownMembers(of: bytes, names: memberNames) { name, value in
    if seen.updateValue(value, forKey: name) != nil { twice = true }
  }
  guard read else { return }
  check(!twice, "readKnownMembers handed a name twice: \(show(bytes))")
  guard case .object(let members)? = parsed else {
    fatalError("readKnownMembers accepted what is not an object: \(show(bytes))")
  }
  check(members.count == seen.count, "readKnownMembers saw \(seen.count) members of \(members.count): \(show(bytes))")
  for (name, value) in seen {
    check(members[names[name]].map(canonical) == canonical(value), "readKnownMembers read '\(names[name])' otherwise: \(show(bytes))")
  }
}

private func checkNumberTexts(_ bytes: [UInt8], _ parsed: JSONValue?) {
  let texts = JSONValue.numberTexts(ofMember: "id", in: bytes)
  guard let parsed else { return }
  func expect(_ text: String?, for element: JSONValue) {
    guard case .object(let members) = element, let id = members["id"] else {
      check(text == nil, "numberTexts found an id in \(show(canonical(element)))")
      return
    }
    switch id {
    case .int, .double:
      guard let text else { fatalError("numberTexts missed the id of \(show(canonical(element)))") }
      let number = try? JSONValue(parsing: text)
      check(number == id, "numberTexts gave '\(text)' for the id \(show(canonical(id)))")
    default:
      check(text == nil, "numberTexts gave a text for the id \(show(canonical(id)))")
    }
  }
  switch parsed {
  case .array(let elements):
    check(texts.count == elements.count, "numberTexts gave \(texts.count) texts for \(elements.count) elements: \(show(bytes))")
    for (text, element) in zip(texts, elements) { expect(text, for: element) }
  default:
    check(texts.count == 1, "numberTexts gave \(texts.count) texts for one value: \(show(bytes))")
    expect(texts.first ?? nil, for: parsed)
  }
}
