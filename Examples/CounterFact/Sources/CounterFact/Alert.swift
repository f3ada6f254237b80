/// A message to show the user.
public struct Alert: Equatable, Sendable, Codable {
  public var title: String
  public var message: String

  public init(title: String, message: String) {
    self.title = title
    self.message = message
  }
}
