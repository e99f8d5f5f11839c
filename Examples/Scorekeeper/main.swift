// A small interactive scorekeeper built on the public API of `HyzerEngine` alone
// (docs/embedding.md): it keeps one round on a store of its own, shows the standings whenever
// anyone changes them, and syncs with peers. Run it with a store directory:
//
//     swift run scorekeeper /tmp/ann Ann
//
// then type `help`. Two of them on one machine, one `listen 127.0.0.1:7420` and the other
// `invite`d and `join`ed with `peer 127.0.0.1:7420`, keep one round between them.
import Foundation
import HyzerEngine

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: scorekeeper STORE-DIRECTORY YOUR-NAME\n".utf8))
    exit(2)
}
/// Writes one line at once, also into a pipe: the standings appear as they change.
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

let directory = URL(fileURLWithPath: arguments[1])
let name = arguments[2]

let engine: HyzerEngine
do {
    engine = try await HyzerEngine.open(at: directory)
} catch ReplicaError.notAStore {
    engine = try await HyzerEngine.create(at: directory, deviceName: "\(name)'s scorekeeper", owner: name)
}
let me = try await engine.owner()
var round: RoundID?
var watching: Task<Void, Never>?
var syncs: [SyncController] = []

/// Prints each new value of the round's standings, from this process or any peer.
func watch(_ round: RoundID) -> Task<Void, Never> {
    Task {
        do {
            for try await standings in engine.observe(.standings(of: round)) {
                let lines = standings.standings.map { "  \($0.position). \($0.name) \($0.totalStrokes) (\($0.holesPlayed) holes)" }
                say((["standings of \(standings.course), \(standings.status):"] + lines).joined(separator: "\n"))
            }
        } catch {
            say("standings stopped: \(error.localizedDescription)")
        }
    }
}

/// The words of `line`; "double quotes" keep a name with spaces in one word.
func words(_ line: String) -> [String] {
    line.split(separator: "\"", omittingEmptySubsequences: false).enumerated().flatMap { index, part in
        index % 2 == 1 ? [String(part)] : part.split(separator: " ").map(String.init)
    }
}

/// The one participant of `round` named `text`, or nil with a message.
func participant(_ text: String, in round: RoundID) async throws -> ParticipantID? {
    let matches = try await engine.participants(named: text, in: round)
    guard matches.count == 1 else {
        say(matches.isEmpty ? "no one named \(text) plays this round" : "\(matches.count) players are named \(text)")
        return nil
    }
    return matches[0]
}

let help = """
    start COURSE PLAYER…        start a round ("Morley Field"; new players are added; you play too)
    score HOLE PLAYER STROKES   record a score in the round
    finish                      finish the round
    group                       create a group       invite    print a token for a device
    join TOKEN                  accept an invitation (admitted at the next sync)
    listen HOST:PORT            accept peers         peer HOST:PORT   dial a peer
    status                      the syncs            quit
    """

say("scorekeeper on \(directory.path) — type help")
while let line = readLine() {
    let words = words(line)
    guard let command = words.first else { continue }
    do {
        switch (command, words.count) {
        case ("help", _):
            say(help)
        case ("start", 3...):
            guard let course = try await engine.courses(named: words[1]).first else {
                say("no course named \(words[1])")
                continue
            }
            var players = me.map { [$0] } ?? []
            for player in words[2...] {
                if let found = try await engine.players(named: player).first {
                    players.append(found)
                } else {
                    players.append(try await engine.addPlayer(named: player))
                }
            }
            let started = try await engine.startRound(on: course, players: players)
            round = started
            watching?.cancel()
            watching = watch(started)
            say("round \(started) started")
        case ("score", 4):
            guard let round, let hole = Int(words[1]), let strokes = Int(words[3]) else {
                say("start a round first; HOLE and STROKES are numbers")
                continue
            }
            guard let player = try await participant(words[2], in: round) else { continue }
            try await engine.recordScore(round: round, participant: player, hole: hole, strokes: strokes)
        case ("finish", 1):
            guard let round else { continue }
            try await engine.finishRound(round, force: true)
        case ("group", 1):
            say("group \(try await engine.createGroup())")
        case ("invite", 1):
            say(try await engine.invite())
        case ("join", 2):
            say("joining group \(try await engine.acceptInvitation(token: words[1])) at the next sync")
        case ("listen", 2), ("peer", 2):
            guard let address = PeerAddress(words[1]) else {
                say("\(words[1]) is not HOST:PORT")
                continue
            }
            let plan = command == "listen" ? SyncPlan(listen: address) : SyncPlan(peers: [address])
            syncs.append(try await engine.startSync(plan))
        case ("status", 1):
            for sync in syncs {
                let status = sync.status
                let peers = status.peers.map { "\($0.peer.short) (lag \($0.lag))" }.joined(separator: ", ")
                say(
                    "\(status.joining ? "joining; " : "")\(status.listening.map { "listening on \($0); " } ?? "")peers: \(peers.isEmpty ? "none" : peers)"
                        + (status.lastFailure.map { "; last failure: \($0)" } ?? ""))
            }
        case ("quit", _):
            watching?.cancel()
            try await engine.close()
            exit(0)
        default:
            say("unknown command; type help")
        }
    } catch {
        say("error: \(error.localizedDescription)")
    }
}
watching?.cancel()
try await engine.close()
