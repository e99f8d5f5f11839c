// A live leaderboard built on `import HyzerEngine` alone (docs/embedding.md): an `@Observable`
// model (`LeaderboardModel`) follows a round's standings and the sync's status, and this
// terminal front end redraws whenever the model changes, as a SwiftUI view would. Run it on a
// store that holds a round, for instance one the scorekeeper example keeps:
//
//     swift run leaderboard /tmp/ann [ROUND] [listen HOST:PORT] [peer HOST:PORT] [link DIRECTORY]
//
// ROUND is a round's id or id prefix, by default the latest. With `listen` or `peer` (a device
// of a group), scores other devices record appear as they arrive. `link DIRECTORY` opens another
// store of the group in this process (a watch beside its phone) and syncs the two over an app's
// own transport, in memory: this store dials, the other accepts (`InProcessLink`). Type `quit`
// or end the input to stop.
import Foundation
import HyzerEngine
import Observation

/// Writes one line at once, also into a pipe.
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

/// The model as text: what a view of it would show.
@MainActor func draw(_ model: LeaderboardModel) {
    var lines = ["== \(model.title)"]
    lines += model.entries.map { "\($0.position). \($0.name)  \($0.formatted)  (\($0.holesPlayed) holes)" }
    if let listening = model.listening { lines.append("listening on \(listening)") }
    if !model.peers.isEmpty { lines.append("peers: " + model.peers.map { "\($0.peer.short) (lag \($0.lag))" }.joined(separator: ", ")) }
    if let problem = model.problem { lines.append("problem: \(problem)") }
    say(lines.joined(separator: "\n"))
}

/// The lines typed, read on a thread of their own so that the main actor stays free to redraw.
func typedLines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream<String>.makeStream()
    Thread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
    }.start()
    return lines
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
    FileHandle.standardError.write(
        Data("usage: leaderboard STORE-DIRECTORY [ROUND] [listen HOST:PORT] [peer HOST:PORT] [link DIRECTORY]\n".utf8))
    exit(2)
}
let engine = try await HyzerEngine.open(at: URL(fileURLWithPath: arguments.removeFirst()))
var plan = SyncPlan()
var roundText = "latest"
var linked: URL?
while let word = arguments.first {
    arguments.removeFirst()
    if word == "link", let directory = arguments.first {
        arguments.removeFirst()
        linked = URL(fileURLWithPath: directory)
        continue
    }
    guard word == "listen" || word == "peer" else {
        roundText = word
        continue
    }
    guard let text = arguments.first, let address = PeerAddress(text) else {
        FileHandle.standardError.write(Data("\(word) takes HOST:PORT\n".utf8))
        exit(2)
    }
    arguments.removeFirst()
    if word == "listen" { plan.listen = address } else { plan.peers.append(address) }
}

let model = LeaderboardModel()
var other: HyzerEngine?
do {
    model.follow(try await engine.round(matching: roundText), on: engine)
    if let linked {
        let far = try await HyzerEngine.open(at: linked)
        other = far
        plan.links.append(InProcessLink(far: try await far.startSync(SyncPlan())))
    }
    if plan.listen != nil || !plan.peers.isEmpty || !plan.links.isEmpty { model.follow(try await engine.startSync(plan)) }
} catch {
    FileHandle.standardError.write(Data("\(error.localizedDescription)\n".utf8))
    try await engine.close()
    exit(1)
}

// Redraws after each change of the model, as SwiftUI would: Observation's tracking of what
// `draw` read.
let drawing = Task { @MainActor in
    while !Task.isCancelled {
        await withCheckedContinuation { changed in
            withObservationTracking {
                draw(model)
            } onChange: {
                changed.resume()
            }
        }
    }
}
for await line in typedLines() where line.trimmingCharacters(in: .whitespaces) == "quit" { break }
drawing.cancel()
model.stop()
try await engine.close()
try await other?.close()
