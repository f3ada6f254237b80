/// What a request knows about the connection it came on.
struct ConnectionContext: Sendable {
  let id: Int
  let role: Role?
  let outbox: Outbox
}
