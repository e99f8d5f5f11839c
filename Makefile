# hyzer-peer — `make demo` and `make test` work on a fresh Debian machine with only Swift.
SWIFT ?= swift
PREFIX ?= /usr/local
BIN := .build/debug/hyzer-peer

.PHONY: deps build test demo install release soak bench nettest clean

# System libraries: installed when missing, every time, idempotently.
deps:
	@missing=""; \
	pkg-config --exists libsodium 2>/dev/null || missing="$$missing libsodium-dev"; \
	pkg-config --exists sqlite3 2>/dev/null || missing="$$missing libsqlite3-dev"; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build
	$(SWIFT) test

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

# The simulator's soak: 1,000 swarm seeds, each its own devices and faults, on a release build
# (docs/simulation.md). Any failure prints the line that reproduces it.
soak: release
	.build/release/hyzer-peer simulate --seeds 1000

# The network test bed: three hosts in network namespaces with loss, duplication, delay,
# partitions and kill -9 (Tests/NetworkTestBed/nettest.py). Needs root, iproute2 and iptables;
# says so and exits 0 without them.
nettest: build
	python3 Tests/NetworkTestBed/nettest.py --binary $(BIN)

clean:
	rm -rf .build
