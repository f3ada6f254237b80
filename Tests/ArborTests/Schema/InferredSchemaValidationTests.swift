import ArborJSON
import Foundation
import ProcessSlots
import Testing

/// Schemas inferred from Codable types must accept what `JSONEncoder` makes of real
/// values, and reject what `JSONDecoder` would refuse. Python's `jsonschema` is the judge.
@Suite(.startsProcesses) struct InferredSchemaValidationTests {
  enum Status: String, Codable, CaseIterable { case draft, sent, paid }

  struct Money: Codable {
    var amount: Decimal
    var currency: String
  }

  struct Line: Codable {
    var sku: String
    var quantity: Int
    var price: Money
    var note: String?
  }

  struct Customer: Codable {
    var id: UUID
    var name: String
    var email: String?
    var website: URL?
  }

  struct Invoice: Codable {
    var number: Int
    var status: Status
    var customer: Customer
    var lines: [Line]
    var tags: Set<String>
    var totals: [String: Double]
    var countsByYear: [Int: Int]
    var issued: Date
    var attachment: Data?
    var flags: [Bool?]
  }

  struct Folder: Codable {
    var name: String
    var children: [Folder]
    var metadata: JSONValue?
  }

  /// An enum with associated values describes its synthesized layout itself.
  enum Stroke: Codable, JSONSchemaDescribing {
    case solid(width: Double)
    case dashed(Double, gap: Double)
    case none

    static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
      definitions.define("Stroke") { _ in
        func only(_ name: String, _ payload: JSONSchema) -> JSONSchema {
          .object(properties: [(name, payload)], required: [name], additionalProperties: false)
        }
        return .oneOf([
          only("solid", .object(properties: [("width", .number)], required: ["width"])),
          only("dashed", .object(properties: [("_0", .number), ("gap", .number)], required: ["_0", "gap"])),
          only("none", .object(properties: [:], additionalProperties: false)),
        ])
      }
    }
  }

  struct Outline: Codable {
    var strokes: [Stroke]
    var closed: Bool
  }

  static let invoice = Invoice(
    number: 7, status: .sent,
    customer: Customer(
      id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, name: "Ada", email: "ada@example.com",
      website: URL(string: "https://example.com/ada")),
    lines: [
      Line(sku: "A-1", quantity: 2, price: Money(amount: Decimal(string: "19.99")!, currency: "EUR"), note: "gift"),
      Line(sku: "B-2", quantity: 1, price: Money(amount: 5, currency: "EUR"), note: nil),
    ],
    tags: ["urgent", "b2b"], totals: ["net": 44.98, "vat": 8.55], countsByYear: [2024: 3, -1: 0],
    issued: Date(timeIntervalSince1970: 1_700_000_000), attachment: Data([0, 1, 2, 255]), flags: [true, nil, false])

  static var sparseInvoice: Invoice {
    var invoice = invoice
    invoice.customer.email = nil
    invoice.customer.website = nil
    invoice.lines = []
    invoice.tags = []
    invoice.totals = [:]
    invoice.countsByYear = [:]
    invoice.attachment = nil
    invoice.flags = []
    return invoice
  }

  static let folder = Folder(
    name: "root",
    children: [
      Folder(name: "a", children: [Folder(name: "a1", children: [], metadata: ["pinned": true])], metadata: nil),
      Folder(name: "b", children: [], metadata: [1, "two", nil]),
    ],
    metadata: "top")

  // MARK: Encoded values validate

  @Test func invoicesWithOptionalsPresentAndAbsentValidate() async throws {
    let report = try await Self.validate(Invoice.self, [try Self.encode(Self.invoice), try Self.encode(Self.sparseInvoice)])
    #expect(report == [[], []])
  }

  @Test func recursiveFoldersValidate() async throws {
    let report = try await Self.validate(Folder.self, [try Self.encode(Self.folder)])
    #expect(report == [[]])
  }

  @Test func enumsWithAssociatedValuesValidateThroughTheirOwnSchema() async throws {
    let outline = Outline(strokes: [.solid(width: 2), .dashed(1, gap: 0.5), .none], closed: true)
    let report = try await Self.validate(Outline.self, [try Self.encode(outline)])
    #expect(report == [[]])
  }

  @Test func explicitNullsForOptionalsValidateAndDecode() async throws {
    let customer = Data(#"{"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "name": "Ada", "email": null}"#.utf8)
    #expect(throws: Never.self) { try JSONDecoder().decode(Customer.self, from: customer) }
    #expect(try await Self.validate(Customer.self, [customer]) == [[]])
  }

  // MARK: Wrong values are rejected

  @Test func valuesThatDoNotDecodeAreRejected() async throws {
    let valid = try JSONDecoder().decode(JSONValue.self, from: Self.encode(Self.invoice))
    guard case .object(let fields) = valid, case .object(let customer)? = fields["customer"] else {
      Issue.record("the encoded invoice is not an object")
      return
    }
    var wrongs: [(String, JSONValue)] = []
    func wrong(_ name: String, _ change: (inout [String: JSONValue]) -> Void) {
      var copy = fields
      change(&copy)
      wrongs.append((name, .object(copy)))
    }
    wrong("a string where an integer belongs") { $0["number"] = "seven" }
    wrong("a fractional number where an integer belongs") { $0["number"] = 7.5 }
    wrong("an unknown status") { $0["status"] = "void" }
    wrong("a missing required property") { $0["lines"] = nil }
    wrong("a nested property of the wrong type") {
      var changed = customer
      changed["name"] = 42
      $0["customer"] = .object(changed)
    }
    wrong("a dictionary key that is not an integer") { $0["countsByYear"] = ["next year": 1] }
    wrong("a set with an element of the wrong type") { $0["tags"] = ["urgent", 3] }
    wrong("a null where the value is not optional") { $0["issued"] = JSONValue.null }

    let encoded = try wrongs.map { try JSONEncoder().encode($0.1) }
    for ((name, _), data) in zip(wrongs, encoded) {
      #expect(throws: (any Error).self, "JSONDecoder accepts \(name)") {
        try JSONDecoder().decode(Invoice.self, from: data)
      }
    }
    let report = try await Self.validate(Invoice.self, encoded)
    for ((name, _), errors) in zip(wrongs, report) {
      #expect(!errors.isEmpty, "the schema accepts \(name)")
    }
    #expect(report.count == wrongs.count)
  }

  @Test func wrongEnumPayloadsAreRejected() async throws {
    let wrongs = [
      #"{"strokes": [{"solid": {"width": "wide"}}], "closed": true}"#,
      #"{"strokes": [{"solid": {"width": 1}, "none": {}}], "closed": true}"#,
      #"{"strokes": [{"wavy": {}}], "closed": true}"#,
    ].map { Data($0.utf8) }
    let report = try await Self.validate(Outline.self, wrongs)
    #expect(report.count == wrongs.count)
    #expect(report.allSatisfy { !$0.isEmpty })
  }

  // MARK: Support

  static func encode<T: Encodable>(_ value: T) throws -> Data { try JSONEncoder().encode(value) }

  /// Validates each instance against the schema document of `type` with
  /// `Draft202012Validator` (after `check_schema` on the document), returning each
  /// instance's errors.
  static func validate<T>(_ type: T.Type, _ instances: [Data]) async throws -> [[String]] {
    var definitions = JSONSchemaDefinitions()
    let root = definitions.schema(for: type)
    return try await validate(document: definitions.document(root: root, title: "\(type)"), instances)
  }

  /// Validates each instance against a schema document; returns each instance's errors.
  static func validate(document: JSONSchema, _ instances: [Data]) async throws -> [[String]] {
    try await Python.requireModules(["jsonschema"])

    var payload = Data(#"{"schema": "#.utf8)
    payload.append(try JSONEncoder().encode(document))
    payload.append(Data(#", "instances": ["#.utf8))
    for (index, instance) in instances.enumerated() {
      if index > 0 { payload.append(Data(", ".utf8)) }
      payload.append(instance)
    }
    payload.append(Data("]}".utf8))

    let result = try await Python.run(validator, stdin: payload)
    guard result.status == 0 else {
      throw Python.Failure(description: "jsonschema failed (status \(result.status)):\n\(result.stderr)")
    }
    return try JSONDecoder().decode([[String]].self, from: Data(result.stdout.utf8))
  }

  static let validator = """
    import json, sys
    from jsonschema import Draft202012Validator

    payload = json.load(sys.stdin)
    schema = payload["schema"]
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    report = [
        ["/" + "/".join(str(part) for part in error.absolute_path) + ": " + error.message
         for error in validator.iter_errors(instance)]
        for instance in payload["instances"]
    ]
    json.dump(report, sys.stdout)
    """
}
