/// An aligned text table: a header row and rows of cells, each column padded to its widest
/// cell, numbers right-aligned. Colour is applied after padding so it never skews alignment.
struct Table {
    enum Alignment { case left, right }

    struct Column {
        let title: String
        let alignment: Alignment
    }

    struct Cell {
        let text: String
        let colour: Terminal.Colour?

        init(_ text: String, _ colour: Terminal.Colour? = nil) {
            self.text = text
            self.colour = colour
        }
    }

    let columns: [Column]
    var rows: [[Cell]] = []

    init(_ columns: [(String, Alignment)]) {
        self.columns = columns.map { Column(title: $0.0, alignment: $0.1) }
    }

    mutating func add(_ cells: [Cell]) {
        precondition(cells.count == columns.count, "a row has one cell per column")
        rows.append(cells)
    }

    mutating func add(_ texts: String...) {
        add(texts.map { Cell($0) })
    }

    func render() -> String {
        var widths = columns.map { $0.title.count }
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.text.count) }
        }
        func line(_ cells: [Cell], header: Bool) -> String {
            var parts: [String] = []
            for (index, cell) in cells.enumerated() {
                let padding = String(repeating: " ", count: widths[index] - cell.text.count)
                let padded = columns[index].alignment == .left ? cell.text + padding : padding + cell.text
                parts.append(Terminal.paint(padded, header ? .bold : cell.text.isEmpty ? nil : cell.colour))
            }
            return parts.joined(separator: "  ").replacing(/\s+$/, with: "")
        }
        return ([line(columns.map { Cell($0.title) }, header: true)] + rows.map { line($0, header: false) })
            .joined(separator: "\n")
    }
}
