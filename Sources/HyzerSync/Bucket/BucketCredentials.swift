import Foundation

/// The keys that sign a bucket's requests, found where the AWS tools look for them
/// (docs/bucket-sync.md, "Credentials"): never taken from the command line, and never printed,
/// logged or encoded (`description` shows the key id only).
public struct BucketCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `AWS_ACCESS_KEY_ID`: the key's public id.
    public let accessKeyID: String
    /// `AWS_SECRET_ACCESS_KEY`: the secret that signs.
    let secretAccessKey: String
    /// `AWS_SESSION_TOKEN`: sent with temporary credentials.
    let sessionToken: String?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The key id and that a secret is held; never the secret.
    public var description: String { "access key \(accessKeyID) (secret not shown)" }

    /// As `description`: the secret is not shown in a debugger or `dump` either.
    public var debugDescription: String { description }

    /// The key id alone.
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID]) }

    /// Where the credentials were looked for and not found, or what was wrong there.
    public struct NotFound: Error, Equatable, Sendable, CustomStringConvertible {
        /// One sentence saying what to do.
        public let description: String
    }

    /// The credentials the AWS tools would use: the profile `profile` of the shared credentials
    /// file when one is named; else `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with
    /// `AWS_SESSION_TOKEN`) from `environment`; else the profile `AWS_PROFILE` names, or
    /// `default`. The file is `AWS_SHARED_CREDENTIALS_FILE`, or `~/.aws/credentials`.
    public static func resolve(profile: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> BucketCredentials
    {
        func nonEmpty(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if profile == nil, let id = nonEmpty("AWS_ACCESS_KEY_ID") {
            guard let secret = nonEmpty("AWS_SECRET_ACCESS_KEY") else {
                throw NotFound(
                    description: "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set both, or neither and use a profile")
            }
            return BucketCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: nonEmpty("AWS_SESSION_TOKEN"))
        }
        let name = profile ?? nonEmpty("AWS_PROFILE") ?? "default"
        let home = nonEmpty("HOME") ?? NSHomeDirectory()
        let path = nonEmpty("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials"
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else {
            throw NotFound(
                description:
                    "no bucket credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or write profile [\(name)] into \(path)")
        }
        let sections = parseINI(String(decoding: data, as: UTF8.self))
        guard let section = sections[name] else {
            throw NotFound(description: "\(path) has no profile [\(name)]: add it, or name another profile")
        }
        guard let id = section["aws_access_key_id"], let secret = section["aws_secret_access_key"] else {
            throw NotFound(description: "profile [\(name)] in \(path) lacks aws_access_key_id or aws_secret_access_key: add both")
        }
        return BucketCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: section["aws_session_token"])
    }

    /// The region: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`.
    public static func region(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }.first { !$0.isEmpty } ?? "us-east-1"
    }

    /// `[section]` and `key = value` lines; `#` and `;` start comments.
    static func parseINI(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                current = name.hasPrefix("profile ") ? String(name.dropFirst(8)) : name
                if let current, sections[current] == nil { sections[current] = [:] }
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            sections[current]?[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return sections
    }
}
