import ArborTesting
import Testing

@Suite struct ExpectEventuallyTests {
  @Test func returnsOnceTheConditionHolds() async {
    let tally = Tally()
    Task {
      try await Task.sleep(for: .milliseconds(20))
      tally.add()
    }
    #expect(await expectEventually("the tally to count one") { tally.value == 1 })
  }

  @Test func aConditionThatNeverHoldsFailsWithItsName() async {
    await withKnownIssue {
      #expect(await expectEventually("a raised flag", seconds: 0.1) { false } == false)
    } matching: { issue in
      isIssue(issue, saying: "Timed out after 0.1 s waiting for a raised flag")
    }
  }
}
