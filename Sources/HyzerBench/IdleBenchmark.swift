import Foundation

/// The CPU an idle `serve` burns: a `serve` process (this binary) with no peers and no writes,
/// and a `sleep` process as the baseline, both measured over the same window from the kernel's
/// accounting (`/proc/PID/stat`, utime + stime, in clock ticks).
struct IdleBenchmark {
    let window: Duration
    let scratch: URL

    func run() throws -> [Figure] {
        let store = scratch.appendingPathComponent("idle")
        for arguments in [["init", "--name", "idle"], ["group", "create"]] {
            let process = try Self.start(arguments, store: store)
            process.waitUntilExit()
            precondition(process.terminationStatus == 0, "the idle store must be created")
        }
        let serve = try Self.start(["serve", "--listen", "127.0.0.1:0"], store: store)
        defer {
            serve.interrupt()
            serve.waitUntilExit()
        }
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["3600"]
        try sleeper.run()
        defer {
            // SIGKILL: a child inherits this process's blocked signals, SIGTERM among them.
            kill(sleeper.processIdentifier, SIGKILL)
            sleeper.waitUntilExit()
        }
        // Startup (opening the store, binding, the first folder-less tick) is not idleness.
        Thread.sleep(forTimeInterval: 1)
        let before = (serve: try Self.ticks(serve), sleep: try Self.ticks(sleeper))
        Thread.sleep(forTimeInterval: Double(window.components.seconds))
        let after = (serve: try Self.ticks(serve), sleep: try Self.ticks(sleeper))
        precondition(serve.isRunning, "serve must still be running")
        let seconds = Double(window.components.seconds)
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        func percent(_ ticks: Int) -> Double { Double(ticks) / perSecond / seconds * 100 }
        let serveTicks = after.serve - before.serve
        let sleepTicks = after.sleep - before.sleep
        return [
            Figure(
                name: "idle serve CPU (\(Int(seconds)) s)", value: percent(serveTicks), unit: "% of a core",
                baseline: percent(sleepTicks),
                baselineName:
                    "a sleep process over the same window (serve: \(serveTicks) ticks, sleep: \(sleepTicks), of \(Int(perSecond)) a second)",
                ratio: nil, target: "< 0.1%", met: percent(serveTicks) < 0.1, spread: 0)
        ]
    }

    static func start(_ arguments: [String], store: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["HYZER_STORE": store.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// utime + stime of a process, in clock ticks: fields 14 and 15 of `/proc/PID/stat`, counted
    /// after the command name's closing parenthesis (the name may hold spaces).
    static func ticks(_ process: Process) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime is field 14, stime field 15.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }
}
