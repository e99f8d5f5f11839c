import Foundation

/// A `serve --listen 127.0.0.1:0` process (this binary) on a store, the port it listens on,
/// and samples of its CPU time and resident memory from the kernel's accounting.
final class ServeProcess {
    let process: Process
    let port: Int

    /// How long the process has to print the port it listens on.
    static let startSeconds = 30.0

    init(store: URL) throws {
        let output = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["serve", "--listen", "127.0.0.1:0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["HYZER_STORE": store.path]) { $1 }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let port = Self.listeningPort(output.fileHandleForReading.fileDescriptor) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw BenchError.unexpected("serve did not say which port it listens on within \(Int(Self.startSeconds)) s")
        }
        self.port = port
    }

    /// Reads `listening on HOST:PORT` from the process's output, for at most `startSeconds`.
    private static func listeningPort(_ descriptor: Int32) -> Int? {
        let deadline = Date().addingTimeInterval(startSeconds)
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0) })
            {
                return port
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return nil }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return nil
    }

    /// SIGINT, then SIGKILL when the process has not exited 10 s later.
    func stop() {
        guard process.isRunning else { return }
        process.interrupt()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    struct Sample {
        let ticks: Int
        let rssMebibytes: Double
        let uptimeNanoseconds: UInt64

        /// The CPU between `earlier` and this sample, with this sample's memory.
        func since(_ earlier: Sample) -> Usage {
            let seconds = Double(uptimeNanoseconds - earlier.uptimeNanoseconds) / 1e9
            let ticks = ticks - earlier.ticks
            return Usage(
                ticks: ticks, percentOfCore: Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK))) / seconds * 100, rssMebibytes: rssMebibytes
            )
        }
    }

    struct Usage {
        let ticks: Int
        let percentOfCore: Double
        let rssMebibytes: Double
    }

    func sample() throws -> Sample {
        guard process.isRunning else { throw BenchError.unexpected("serve exited with status \(process.terminationStatus)") }
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let kibibytes = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?.split(separator: " ").dropFirst().first.flatMap {
            Double($0)
        }
        return Sample(
            ticks: try IdleBenchmark.ticks(process), rssMebibytes: (kibibytes ?? 0) / 1024,
            uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds)
    }
}
