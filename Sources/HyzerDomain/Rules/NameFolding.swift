import Foundation

/// How people's names compare when a person types them: spaces around the name trimmed, case,
/// accents and character widths folded, locale-free. "Zoë", " zoe" and "ZOE" fold alike; that is
/// why a round refuses two guests (or a guest and a player) that fold alike, and how `card`
/// matches the names on a scorecard (docs/domain.md).
public enum NameFolding {
    /// `name` trimmed and folded.
    public static func folded(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespaces)
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
