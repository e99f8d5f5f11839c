import HyzerDomain

/// Inputs that reach a trap already reported and fixed on another branch: the target skips
/// them so that fuzzing goes on finding new ones. Remove each entry once its fix is merged;
/// docs/fuzzing.md lists them with the regression tests that cover them.
public enum KnownTraps {
    /// An op whose clock reads 2^63 ms or more: the materializer converts the stamp to `Int64`
    /// (`Store/Materializer.swift`, player and course creation).
    public static func reached(by input: IngestInput) -> Bool {
        input.segments.contains { segment in
            segment.tails.contains { tail in
                var reader = ByteReader(tail.prefix(8))
                return ((try? reader.readUInt64()) ?? 0) > UInt64(Int64.max)
            }
        }
    }
}
