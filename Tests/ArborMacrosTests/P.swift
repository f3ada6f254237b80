import Testing
import MacroTesting
@Test func placeholder() {}
