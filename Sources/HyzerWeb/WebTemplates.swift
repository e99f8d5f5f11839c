import Mustache

/// Every page template and partial, parsed once (`Templates/`).
struct WebTemplates: Sendable {
    enum Page: String {
        case index, leaderboard, board, card, player, history, error
    }

    let library: MustacheLibrary

    init() throws {
        var library = MustacheLibrary()
        try library.register(LayoutTemplates.head, named: "head")
        try library.register(LayoutTemplates.foot, named: "foot")
        try library.register(IndexTemplate.page, named: Page.index.rawValue)
        try library.register(LeaderboardTemplates.page, named: Page.leaderboard.rawValue)
        try library.register(LeaderboardTemplates.board, named: Page.board.rawValue)
        try library.register(CardTemplate.page, named: Page.card.rawValue)
        try library.register(PlayerTemplate.page, named: Page.player.rawValue)
        try library.register(PlayerTemplate.chart, named: "chart")
        try library.register(HistoryTemplate.page, named: Page.history.rawValue)
        try library.register(ErrorTemplate.page, named: Page.error.rawValue)
        self.library = library
    }

    func render(_ page: Page, _ model: Any) -> String {
        library.render(model, withTemplate: page.rawValue) ?? ""
    }
}
