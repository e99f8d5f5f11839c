import GRDB

/// Rows for one table, inserted many per statement: the same rows as one statement each, with
/// a fraction of the statement overhead. Callers `flush` before anything reads the table.
struct BatchInsert {
    let table: String
    let columns: [String]
    let rowsPerStatement: Int
    private var values: [DatabaseValue] = []

    init(into table: String, columns: [String], rowsPerStatement: Int = 64) {
        self.table = table
        self.columns = columns
        self.rowsPerStatement = rowsPerStatement
        values.reserveCapacity(columns.count * rowsPerStatement)
    }

    mutating func add(_ row: DatabaseValue..., db: Database) throws {
        precondition(row.count == columns.count, "one value per column")
        values.append(contentsOf: row)
        if values.count == columns.count * rowsPerStatement { try flush(db) }
    }

    mutating func flush(_ db: Database) throws {
        let rows = values.count / columns.count
        guard rows > 0 else { return }
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let sql =
            "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
        let statement = try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(StatementArguments(values))
        try statement.execute()
        values.removeAll(keepingCapacity: true)
    }
}

/// The batched inserts of appending ops: their log rows.
struct OpSink {
    var ops = BatchInsert(into: "ops", columns: ["author", "sequence", "hash", "tail", "signature"])

    mutating func flush(_ db: Database) throws {
        try ops.flush(db)
    }
}
