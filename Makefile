# hyzer-peer — `make demo` and `make test` work on a fresh Debian machine with only Swift.
SWIFT ?= swift
PREFIX ?= /usr/local
BIN := .build/debug/hyzer-peer

.PHONY: deps build test test-portable demo install release soak bench nettest clean fuzz fuzz-smoke fuzz-build fuzz-release-build fuzz-corpus format lint docs

# System libraries: installed when missing, every time, idempotently.
deps:
	@missing=""; \
	pkg-config --exists libsodium 2>/dev/null || missing="$$missing libsodium-dev"; \
	pkg-config --exists sqlite3 2>/dev/null || missing="$$missing libsqlite3-dev"; \
	[ -f /usr/include/avahi-compat-libdns_sd/dns_sd.h ] || missing="$$missing libavahi-compat-libdnssd-dev"; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

# The suite runs in three parts, each a `swift test` of its own, so a test's waits do not queue
# behind tests of another kind. Swift Testing runs every test on the concurrency pool, two
# threads on two cores; the binary's tests (HyzerPeerTests) hold a thread each while the process
# they started runs, and amid them an async test's continuation once waited for minutes (a
# poll of 120 s and a handshake of 600 s ran out in CI). So: the library's suites first, then
# the binary's, then the tests that hold the code to a time bound, alone: the engine's
# observation latency (docs/embedding.md, "Observation"), a member's syncs amid a crowd from its
# own address (docs/security.md, "A crowd from a member's own address"), and a score on the
# leaderboard published to a bucket within 3 s (docs/bucket-sync.md, "Publishing the
# leaderboard"), from the library and from the binary.
TIMED_TESTS := twoObserversSeeScoresFromAPeerOverALinkAndFromAnotherProcessWithin50Milliseconds|aMemberAmongSixHundredConnectionsFromItsOwnAddressSyncsNineTimesInTen|aScoreReachesThePublishedLeaderboardWithinThreeSeconds|servePublishesTheLeaderboardToTheBucket
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip 'HyzerPeerTests' --skip '$(TIMED_TESTS)'
	$(SWIFT) test --skip-build --filter 'HyzerPeerTests' --skip '$(TIMED_TESTS)'
	$(SWIFT) test --skip-build --filter '$(TIMED_TESTS)'

# The change monitor that needs no inotify, as Apple platforms build it (docs/architecture.md,
# "Platform"): the package built with HYZER_PORTABLE_MONITOR into a scratch path of its own, then
# the suites that stand on the monitor — the engine's, the app's, the monitor's own and the live
# sync's — run on it. The timed tests are left to `make test`: a poll is not held to 50 ms.
PORTABLE := --scratch-path .build-portable -Xswiftc -DHYZER_PORTABLE_MONITOR
PORTABLE_SUITES := HyzerEngineTests|HyzerAppTests|StoreChangeMonitorTests|HyzerLiveSyncTests\.(LiveSyncTests/(LinkSyncTests|PeerSyncTests)|WriterDeltaTests)
test-portable: deps
	$(SWIFT) build --build-tests $(PORTABLE)
	$(SWIFT) test --skip-build $(PORTABLE) --filter '$(PORTABLE_SUITES)' --skip '$(TIMED_TESTS)'

demo: build
	$(BIN) demo

release: deps
	$(SWIFT) build -c release --static-swift-stdlib

install: release
	install -d $(PREFIX)/bin
	install -m 0755 .build/release/hyzer-peer $(PREFIX)/bin/hyzer-peer

# The performance suite on a release build (docs/performance.md records a run).
bench: release
	.build/release/hyzer-peer bench

# The API documentation of the library products (DocC, swift-docc-plugin; docs/embedding.md,
# "API docs"), one archive per target into .build/docs/TARGET; any warning, a broken symbol link
# first, fails it, and so does a public declaration without a doc comment
# (`scripts/undocumented.py` lists them). Not part of `make test` (CI runs it after).
DOC_TARGETS := HyzerDomain HyzerKit HyzerSync HyzerEngine

docs: deps
	python3 scripts/undocumented.py $(DOC_TARGETS)
	mkdir -p .build/docs
	@for target in $(DOC_TARGETS); do \
		rm -rf .build/docs/$$target; \
		echo "$(SWIFT) package --disable-sandbox generate-documentation --target $$target --warnings-as-errors --output-path .build/docs/$$target"; \
		$(SWIFT) package --disable-sandbox generate-documentation --target $$target --warnings-as-errors \
			--output-path .build/docs/$$target || exit 1; \
	done

# The simulator's soak: 10,000 swarm seeds, each its own devices and faults, on a release build,
# one thread per core (docs/simulation.md, "The soak"). Any failure prints the line that
# reproduces it, shrunk. `make soak SOAK_SEEDS=1000` for a shorter one. Then full-profile
# tournament swarms (a group of about 150 devices, 3–8 minutes a seed): seeds 1 and 2 by default,
# the first of which found the live connection that never re-sent what a junk cap evicted.
SOAK_SEEDS ?= 10000
SOAK_TOURNAMENT_SEEDS ?= 2
soak: release
	.build/release/hyzer-peer simulate --seeds $(SOAK_SEEDS)
	.build/release/hyzer-peer simulate --scenario tournament --seeds $(SOAK_TOURNAMENT_SEEDS) --seed 1 --profile full

# The network test bed: three hosts in network namespaces with loss, duplication, delay,
# partitions and kill -9, then discovery on hosts with their own avahi-daemon
# (Tests/NetworkTestBed/nettest.py, discovery.py). Needs root, iproute2 and iptables, and
# avahi-daemon, avahi-utils and dbus for discovery; says so and exits 0 without them, except
# under CI (`CI` set), where it fails.
nettest: build
	python3 Tests/NetworkTestBed/nettest.py --binary $(BIN)

# libFuzzer targets (docs/fuzzing.md), built with -sanitize=fuzzer,address in their own scratch
# directory; the targets exist in the package only when HYZER_FUZZ is set.
FUZZ_TARGETS := FuzzSealedFile FuzzBundle FuzzIngest FuzzFrames FuzzHandshake FuzzSyncMessage FuzzInvite FuzzVectorFile FuzzOpPayload FuzzLineage FuzzDiscoveryRecord FuzzBucketListing
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_BUILD := HYZER_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz -c debug -Xswiftc -sanitize=fuzzer,address
# `make fuzz` runs optimized targets (about 25 times the inputs a second of debug ones); the
# fuzz targets reach internals, hence -enable-testing.
FUZZ_RELEASE_BUILD := HYZER_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz-release -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing

fuzz-build: deps
	@for target in $(FUZZ_TARGETS); do $(FUZZ_BUILD) --product $$target || exit 1; done

fuzz-release-build: deps
	@for target in $(FUZZ_TARGETS); do $(FUZZ_RELEASE_BUILD) --product $$target || exit 1; done

# Every target for FUZZ_SECONDS, one after another, optimized; fails on any crash or hang.
fuzz: fuzz-release-build
	FUZZ_BIN=.build-fuzz-release/release Fuzz/run.sh replay $(FUZZ_TARGETS)
	FUZZ_BIN=.build-fuzz-release/release Fuzz/run.sh fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# CI's short run: the checked-in corpus replayed, then every target for FUZZ_SMOKE_SECONDS.
fuzz-smoke: fuzz-build
	Fuzz/run.sh replay $(FUZZ_TARGETS)
	Fuzz/run.sh fuzz $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

# Writes the seed corpora again from real bundles, files, tokens and messages.
fuzz-corpus: deps
	HYZER_FUZZ=1 $(SWIFT) build --product FuzzCorpus
	rm -rf Fuzz/Corpus
	.build/debug/FuzzCorpus Fuzz/Corpus

# Formatting (.swift-format): `make format` rewrites, `make lint` fails on any finding (CI runs it).
# `make lint` also holds the examples to one import (docs/embedding.md, "One import"): no module
# of this package but HyzerEngine.
FORMATTED := Sources Tests Simulations Fuzz Examples Package.swift

format:
	$(SWIFT) format -i -r $(FORMATTED)

lint:
	$(SWIFT) format lint --strict -r $(FORMATTED)
	@if grep -rnE '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+([a-z]+[[:space:]]+)?(Hyzer[A-Za-z]*|CSodium|CSimulatedDisk)' Examples \
		| grep -vE 'import[[:space:]]+HyzerEngine[[:space:]]*$$'; then \
		echo "the examples import only HyzerEngine of this package's modules (docs/embedding.md, \"One import\")"; exit 1; fi
	@if grep -rnE 'public[^=]*[^A-Za-z]([A-Za-z]*ID|id|(round|player|device|event|organizer|participant|member|group|status))s?[[:space:]]*:[[:space:]]*(\[[[:space:]]*)?String([^A-Za-z]|$$)' \
		Sources/HyzerEngine Sources/HyzerKit/Documents Sources/HyzerDomain; then \
		echo "the façade, its documents and the domain's values name ids and statuses by type, not by String (docs/embedding.md, \"One import\")"; exit 1; fi

clean:
	rm -rf .build .build-portable .build-fuzz .build-fuzz-release
