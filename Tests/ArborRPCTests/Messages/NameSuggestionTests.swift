import ArborRPC
import Testing

/// The name probably meant: close enough to be a slip, never a guess.
@Suite struct NameSuggestionTests {
  @Test(arguments: [
    ("state.gett", ["state.get", "state.watch", "state.at"], "state.get"),
    ("incrementTaped", ["incrementTapped", "decrementTapped"], "incrementTapped"),
    ("countrs", ["counters", "factPrompt", "id"], "counters"),
    ("Counters", ["counters"], "counters"),
    ("hsitory.changes", ["history.changes"], "history.changes"),
  ])
  func aSlipFindsTheName(typed: String, names: [String], meant: String) {
    #expect(NameSuggestion.closest(to: typed, among: names) == meant)
  }

  @Test func somethingElseFindsNothing() {
    #expect(NameSuggestion.closest(to: "explode", among: ["incrementTapped", "decrementTapped", "alertDismissed"]) == nil)
    #expect(NameSuggestion.closest(to: "x", among: ["counters"]) == nil)
    #expect(NameSuggestion.closest(to: "state.get", among: ["state.get"]) == nil, "the name itself is not a suggestion")
    #expect(NameSuggestion.closest(to: "", among: []) == nil)
  }

  @Test func theMessageOfAnUnknownMethodNamesTheOneMeant() {
    #expect(RPCError.methodNotFound("state.gett", available: ["state.get", "state.at"]).message == "Method not found: state.gett (did you mean state.get?)")
    #expect(RPCError.methodNotFound("nope", available: ["state.get"]).message == "Method not found: nope")
  }
}
