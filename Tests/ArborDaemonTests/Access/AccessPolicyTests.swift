import ArborDaemon
import Testing

@Suite struct AccessPolicyTests {
  @Test func theDaemonsOwnUserIsAdminAndStrangersHaveNoRole() {
    let policy = AccessPolicy(ownUID: 1000)
    #expect(policy.role(uid: 1000, gid: 1000) == .admin)
    #expect(policy.role(uid: 1001, gid: 1000) == nil)
  }

  @Test func rolesAreGrantedByUserOrGroupAndTheHighestWins() throws {
    let policy = AccessPolicy(
      ownUID: 0, readers: try PrincipalList(parsing: "gid:50, 2000").principals,
      operators: try PrincipalList(parsing: "uid:2001").principals, admins: [.group(10)])
    #expect(policy.role(uid: 3000, gid: 50) == .reader)
    #expect(policy.role(uid: 2000, gid: 1) == .reader)
    #expect(policy.role(uid: 2001, gid: 50) == .operator)
    #expect(policy.role(uid: 2001, gid: 10) == .admin)
    #expect(policy.role(uid: 4000, gid: 4000) == nil)
  }

  @Test func aMalformedPrincipalIsNamed() throws {
    #expect(throws: PrincipalListError.self) { try PrincipalList(parsing: "uid:1,bob") }
    do { _ = try PrincipalList(parsing: "uid:1,bob") } catch { #expect(error.description == "'bob' is not uid:N, gid:N, user:NAME, group:NAME or a uid") }
    // Names are looked up: root and its group exist everywhere, the others nowhere.
    #expect(try PrincipalList(parsing: "user:root, group:root").principals == [.user(0), .group(0)])
    let unknown = #expect(throws: PrincipalListError.self) { try PrincipalList(parsing: "group:no-such-group-here") }
    #expect(unknown?.description == "'group:no-such-group-here' names no group on this system")
    #expect(PrincipalList(argument: "user:") == nil)
    #expect(PrincipalList(argument: "gid:x") == nil)
  }

  @Test func eachRoleIncludesTheOnesBelow() {
    #expect(Role.reader < .operator && Role.operator < .admin)
  }
}
