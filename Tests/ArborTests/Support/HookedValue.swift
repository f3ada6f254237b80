import Arbor

/// User code to run from inside a value's `==` or `encode(to:)`.
final class Hook: Sendable {
  let run: @Sendable () -> Void
  init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// A value whose `==` and `encode(to:)` run hooks: user code that Arbor calls while it
/// writes or records a property, to show what such code may do. Only `number` is compared
/// and encoded.
struct Hooked: Equatable, Codable, Sendable {
  var number: Int
  var onCompare: Hook?
  var onEncode: Hook?

  init(_ number: Int, onCompare: Hook? = nil, onEncode: Hook? = nil) {
    self.number = number
    self.onCompare = onCompare
    self.onEncode = onEncode
  }

  static func == (lhs: Hooked, rhs: Hooked) -> Bool {
    lhs.onCompare?.run()
    rhs.onCompare?.run()
    return lhs.number == rhs.number
  }

  enum CodingKeys: CodingKey { case number }

  init(from decoder: any Decoder) throws {
    number = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .number)
  }

  func encode(to encoder: any Encoder) throws {
    onEncode?.run()
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(number, forKey: .number)
  }
}

/// A model holding a hooked value and a plain one.
@Model struct Meter {
  var reading = Hooked(0)
  var other = 0
}
