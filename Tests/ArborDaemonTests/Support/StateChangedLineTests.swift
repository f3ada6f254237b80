import ArborJSON
import Testing

/// The load test's quick read of a notification gives what a parse gives, or nothing.
struct StateChangedLineTests {
  @Test(arguments: [
    #"{"jsonrpc":"2.0","method":"state.changed","params":{"patch":[{"op":"add","path":"/counters/0","value":{"id":"a1"}}],"revision":1,"subscription":1}}"#,
    #"{"jsonrpc":"2.0","method":"state.changed","params":{"patch":[],"resync":true,"revision":912,"subscription":40}}"#,
    #"{"jsonrpc":"2.0","method":"state.changed","params":{"patch":[{"op":"replace","path":"/revision","value":7}],"revision":123456789012,"subscription":3}}"#,
  ])
  func readsWhatAParseReads(line: String) throws {
    let quick = try #require(StateChangedLine(Array(line.utf8)))
    #expect(quick == StateChangedLine.parsed(try JSONValue(parsing: Array(line.utf8))))
  }

  @Test(arguments: [
    #"{"id":2,"jsonrpc":"2.0","result":{"result":null,"revision":1}}"#,
    #"{"jsonrpc":"2.0","method":"state.changed","params":{"revision":1,"subscription":1,"patch":[]}}"#,
    #"{"jsonrpc":"2.0","method":"state.changed","params":{"patch":[],"revision":1,"subscription":1}} "#,
    #"{"jsonrpc":"2.0","method":"state.changed","params":{"patch":[],"revision":-1,"subscription":1}}"#,
    #"{"jsonrpc":"2.0","method":"watch.closed","params":{"revision":1,"subscription":1}}"#,
  ])
  func leavesOtherShapesToAParse(line: String) {
    #expect(StateChangedLine(Array(line.utf8)) == nil)
  }
}
