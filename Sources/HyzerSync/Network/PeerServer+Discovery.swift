import HyzerKit

extension PeerServer {
    /// Advertises the listener and keeps every member discovered on the LAN connected
    /// (docs/discovery.md), until cancelled. A responder that cannot be reached is one warning;
    /// the named peers and the listener go on without it.
    func runDiscovery(_ discovery: any ServiceDiscovery, advertisedPort: Int?, groups: GroupSource, signals: ConnectionSignals) async {
        let nonce = DiscoveryRecord.makeNonce()
        var advertisement: (activity: any DiscoveryActivity, record: DiscoveryRecord)?
        var revision: UInt32 = 0
        var seenChanges: Int?
        // One line for a responder that is down, whether advertising or browsing found out.
        let off = RepeatedNotice(interval: .seconds(86_400))
        let warn: @Sendable (DiscoveryError) -> Void = { [logger] error in
            guard off.isDue("off") else { return }
            logger.warning("discovery is off: \(error); syncing with the named peers only")
        }
        // The record follows the store: a rekey or a removal changes the tag, an invitation
        // issued or used up the join tags. Read again only after a change of the store; a new
        // record is a new revision, advertised under a new name.
        func advertise() {
            guard let port = advertisedPort, seenChanges != signals.changesPublished || advertisement == nil else { return }
            seenChanges = signals.changesPublished
            let keys = (try? replica.admittingInvitationKeys()) ?? []
            func record(_ revision: UInt32) -> DiscoveryRecord {
                DiscoveryRecord(group: groups.current(), nonce: nonce, revision: revision, discovers: discovers, invitationKeys: keys)
            }
            if let current = advertisement?.record {
                guard current != record(current.revision) else { return }
                revision = current.revision &+ 1
            }
            let next = record(revision)
            advertisement?.activity.stop()
            advertisement = nil
            do throws(DiscoveryError) {
                advertisement = (try discovery.advertise(name: next.instanceName, port: port, txt: next.txt), next)
                logger.info(
                    "advertising on the LAN",
                    metadata: ["name": "\(next.instanceName)", "port": "\(port)", "joinTags": "\(next.joinTags.count)"])
            } catch {
                warn(error)
            }
        }
        defer { advertisement?.activity.stop() }
        await withDiscardingTaskGroup { tasks in
            if discovers {
                tasks.addTask {
                    await dialDiscovered(
                        discovery, nonce: nonce, advertising: advertisedPort != nil, groups: groups, signals: signals, warn: warn)
                }
            }
            guard advertisedPort != nil else { return }
            while !Task.isCancelled {
                advertise()
                try? await Task.sleep(for: .seconds(2))
            }
        }
    }

    /// Browses the LAN and keeps a connection to every member found: never this process
    /// itself, never an address named in `peers`, and of two members that both dial what they
    /// discover, only the one with the smaller nonce dials the other.
    private func dialDiscovered(
        _ discovery: any ServiceDiscovery, nonce: [UInt8], advertising: Bool, groups: GroupSource, signals: ConnectionSignals,
        warn: @Sendable (DiscoveryError) -> Void
    ) async {
        let services = DiscoveredServices(servicesMax: discoveredServicesMax) { service in
            DiscoveryRecord(service.txt).map { $0.nonce != nonce && $0.isTagged(for: groups.current()) } ?? false
        }
        let browse: any DiscoveryActivity
        do throws(DiscoveryError) { browse = try discovery.browse(into: services) } catch {
            return warn(error)
        }
        defer { browse.stop() }
        let named = Set(peers)
        let gate = DialGate(places: discoveredDialsMax)
        // One dialer per nonce (one run of a member), whatever name and address it is found under.
        var dialed: [[UInt8]: DiscoveredPeer] = [:]
        // Services given up without proof (a copied record), and until when: bounded, oldest out first.
        var ignored: [String: ContinuousClock.Instant] = [:]
        await withDiscardingTaskGroup { tasks in
            // A look every few seconds, changes or not: a service ignored for a while is dialed again.
            tasks.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    services.ring()
                }
            }
            for await _ in services.changes() {
                let now = ContinuousClock.now
                let group = groups.current()
                for (key, peer) in dialed where peer.isFinished {
                    dialed.removeValue(forKey: key)
                    if !peer.hasProved { ignored[peer.name] = now + Self.ignoredFor }
                }
                ignored = ignored.filter { $0.value > now }
                if ignored.count > Self.ignoredMax {
                    ignored = Dictionary(
                        uniqueKeysWithValues: ignored.sorted { $0.value > $1.value }.prefix(Self.ignoredMax).map { ($0.key, $0.value) })
                }
                // Candidates in the order they were found, those under their record's own name
                // first: a copy published through a responder cannot hold the name the member holds.
                var found: Set<PeerAddress> = []
                var owned: [(name: String, address: PeerAddress, nonce: [UInt8])] = []
                var others: [(name: String, address: PeerAddress, nonce: [UInt8])] = []
                for service in services.all where ignored[service.name] == nil {
                    guard let record = DiscoveryRecord(service.txt), record.nonce != nonce, record.isTagged(for: group) else { continue }
                    found.insert(service.address)
                    guard !named.contains(service.address) else { continue }
                    // Both dial what they discover: the smaller nonce dials, the other accepts.
                    if advertising, record.discovers, record.nonce.lexicographicallyPrecedes(nonce) { continue }
                    if service.name == record.instanceName {
                        owned.append((service.name, service.address, record.nonce))
                    } else {
                        others.append((service.name, service.address, record.nonce))
                    }
                }
                var chosen: [[UInt8]: (name: String, address: PeerAddress)] = [:]
                var order: [[UInt8]] = []
                for candidate in owned + others where chosen[candidate.nonce] == nil {
                    chosen[candidate.nonce] = (candidate.name, candidate.address)
                    order.append(candidate.nonce)
                }
                // A member started again at the same address (a fixed port) takes over the dialer
                // of its previous run, which it would otherwise meet a second time.
                for key in order where dialed[key] == nil {
                    guard let found = chosen[key],
                        let previous = dialed.first(where: { chosen[$0.key] == nil && $0.value.address == found.address })
                    else { continue }
                    dialed.removeValue(forKey: previous.key)
                    dialed[key] = previous.value
                }
                for (key, peer) in dialed {
                    if let found = chosen[key] { peer.seen(as: found.name, at: found.address) } else { peer.gone() }
                }
                for key in order where dialed[key] == nil {
                    guard dialed.count < discoveredPeersMax, let found = chosen[key] else { break }
                    let peer = DiscoveredPeer(name: found.name, address: found.address)
                    dialed[key] = peer
                    logger.info("dialing a member found on the LAN", metadata: ["name": "\(found.name)", "address": "\(found.address)"])
                    tasks.addTask {
                        await PeerDialer.keepConnected(
                            peer, replica: replica, group: group, logger: logger, signals: signals, budget: budget,
                            configuration: configuration,
                            observer: { outcome in
                                peer.connectionEnded(proved: outcome.peer != nil)
                                observer(outcome)
                            }, gate: gate, while: { peer.isWanted() })
                        peer.isFinished = true
                        services.ring()
                    }
                }
                discoveryObserver(found.sorted { $0.description < $1.description })
            }
        }
    }

    /// How long a discovered service that never proved itself is left alone before it is dialed again.
    static var ignoredFor: Duration { .seconds(60) }
    /// The most services left alone at once; beyond, those with the nearest end are forgotten.
    static var ignoredMax: Int { 4_096 }
}
