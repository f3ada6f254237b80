import Foundation
import Testing

@testable import ArborDaemon

/// ``HandOverState`` as one process writes it and the next reads it, including a state
/// written by a process that handed no output over (an earlier build).
@Suite struct HandOverStateTests {
  @Test func aConnectionsUnsentOutputGoesOverWhole() throws {
    let output = Data((0...255).map { UInt8($0) } + Array("{\"id\":1}\n".utf8))
    let watch = HandedWatch(subscription: 3, kind: .state, scope: "/counters", types: nil, awaitingResync: false)
    let state = HandOverState(
      generation: 2, revision: 41, schema: "s", connections: ["connection-7": .init(input: Array("{\"jsonrpc\"".utf8), output: output, watches: [watch])])
    #expect(try HandOverState(reading: state.encoded()) == state)
    // Across builds: an earlier build reads with Foundation's decoder what this one writes,
    // and this one reads what an earlier build wrote with Foundation's encoder.
    #expect(try JSONDecoder().decode(HandOverState.self, from: Data(state.encoded())) == state)
    #expect(try HandOverState(reading: Array(JSONEncoder().encode(state))) == state)
  }

  @Test func aStateWithoutConnectionsOrSchemaGoesOver() throws {
    let state = HandOverState(generation: 1, revision: 0, schema: nil, connections: [:])
    #expect(try HandOverState(reading: state.encoded()) == state)
    #expect(try JSONDecoder().decode(HandOverState.self, from: Data(state.encoded())) == state)
  }

  @Test func aBrokenStateIsAnError() {
    #expect(throws: (any Error).self) { try HandOverState(reading: Array(#"{"generation":1,"revision":"x","connections":{}}"#.utf8)) }
    #expect(throws: (any Error).self) { try HandOverState(reading: Array("{\"generation\":1,".utf8)) }
  }

  @Test func aStateWithoutOutputFromAnEarlierBuildIsRead() throws {
    let earlier = #"{"generation":1,"revision":12,"schema":"s","connections":{"connection-4":{"input":[123],"watches":[]}}}"#
    let read = try HandOverState(reading: Array(earlier.utf8))
    #expect(read.connections["connection-4"] == .init(input: [123], output: nil, watches: []))
  }
}
