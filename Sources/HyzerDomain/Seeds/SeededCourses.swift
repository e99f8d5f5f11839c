import Foundation

/// The three courses every replica seeds at `init` (docs/rules.md, "Seeded courses"): Morley Field,
/// Maple Hill and DeLaveaga, 18 holes each with their real pars.
///
/// The data is embedded in the source, so the binary works when copied alone; a test checks it
/// equals `Resources/SeededCourses.json` exactly. Ids are name-based, so ten replicas seeding
/// independently still hold three courses after sync, and seeding is idempotent.
public enum SeededCourses {
    /// The namespace of seeded course ids: `c3cf0487-92c8-5423-9963-1148889eafd4`, itself the
    /// UUIDv5 of the DNS namespace and the name `seeded-courses.hyzer-peer`. Never change it:
    /// every replica's seeded course ids derive from it.
    public static let namespace = UUID(
        uuid: (0xC3, 0xCF, 0x04, 0x87, 0x92, 0xC8, 0x54, 0x23, 0x99, 0x63, 0x11, 0x48, 0x88, 0x9E, 0xAF, 0xD4)
    )

    /// Each course's name and the par of hole `n` at index `n - 1`, in the order of
    /// `Resources/SeededCourses.json`.
    static let pars: [(name: String, pars: [Int])] = [
        ("Morley Field", [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]),
        ("Maple Hill", [3, 3, 3, 4, 3, 3, 3, 3, 4, 3, 3, 3, 4, 3, 3, 4, 3, 3]),
        ("DeLaveaga", [3, 3, 3, 3, 3, 3, 4, 3, 3, 3, 3, 3, 4, 3, 3, 3, 4, 3]),
    ]

    /// The seeded courses: id `UUID(v5: name, namespace: namespace)`, `isSeeded`, not deleted,
    /// created at `HLCTimestamp.zero` (older than every op, so any later edit wins).
    public static let all: [Course] = pars.map { name, pars in
        Course(
            id: UUID(v5: name, namespace: namespace), name: name, pars: pars, isSeeded: true, deleted: false,
            createdAt: .zero
        )
    }
}
