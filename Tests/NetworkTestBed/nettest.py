#!/usr/bin/env python3
"""hyzer-peer's network test bed (docs/performance.md, "Real networks").

Three hosts in network namespaces on one bridge, each running `hyzer-peer serve`, with faults
from iptables (random drop, duplication through TEE) and a userspace delay proxy in front of
every listener. Scenarios score concurrently under faults, partition and heal a host (iptables
and link down), and kill -9 a `serve` in the middle of a delta; each prints the time until every
replica holds the same op set (the same `status --json` digest).

Needs root (namespaces, iptables). Without them it prints one line saying so and exits 0, so
`make nettest` is harmless on a developer's laptop; under CI (the `CI` variable set, as CI sets
it) it exits 1 instead, so a machine that cannot run it fails rather than passing unseen.
Every address used is on a private bridge inside namespaces this script creates and deletes.

Then the discovery scenarios (discovery.py, docs/discovery.md): hosts with their own D-Bus and
avahi-daemon, `serve --discover` with no address. Without avahi installed they are skipped with
one line, except under CI, where that fails the run.
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import discovery

PREFIX = "hznt"
SUBNET = "10.213.77"
HOSTS = ["a", "b", "c"]
SERVE_PORT = 7070
PROXY_PORT = 7071


def run(*args, check=True, capture=False, ns=None, input_text=None):
    command = (["ip", "netns", "exec", f"{PREFIX}-{ns}"] if ns else []) + list(args)
    result = subprocess.run(command, check=False, text=True, input=input_text,
                            stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")
    return result


def address(host):
    return f"{SUBNET}.{HOSTS.index(host) + 1}"


def available(tools=("ip", "iptables")):
    """Why the test bed cannot run here, or None."""
    if os.geteuid() != 0:
        return "not root"
    for tool in tools:
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (apt-get install iproute2 iptables)"
    probe = f"{PREFIX}-probe"
    if subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode != 0:
        return "network namespaces are not available"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


class TestBed:
    """The namespaces, the bridge, the stores and the serve processes."""

    def __init__(self, binary, workdir, log):
        self.binary = os.path.abspath(binary)
        self.workdir = workdir
        self.log = log
        self.serves = {}
        self.proxies = {}

    # --- network -----------------------------------------------------------------------------
    def create_network(self):
        self.destroy_network()
        run("ip", "netns", "add", f"{PREFIX}-switch")
        run("ip", "link", "add", "br0", "type", "bridge", ns="switch")
        run("ip", "link", "set", "br0", "up", ns="switch")
        for host in HOSTS:
            ns = f"{PREFIX}-{host}"
            run("ip", "netns", "add", ns)
            run("ip", "link", "add", f"{PREFIX}{host}0", "type", "veth", "peer", "name", f"{PREFIX}{host}1")
            run("ip", "link", "set", f"{PREFIX}{host}0", "netns", ns)
            run("ip", "link", "set", f"{PREFIX}{host}1", "netns", f"{PREFIX}-switch")
            run("ip", "link", "set", f"{PREFIX}{host}1", "master", "br0", ns="switch")
            run("ip", "link", "set", f"{PREFIX}{host}1", "up", ns="switch")
            run("ip", "addr", "add", f"{address(host)}/24", "dev", f"{PREFIX}{host}0", ns=host)
            run("ip", "link", "set", f"{PREFIX}{host}0", "up", ns=host)
            run("ip", "link", "set", "lo", "up", ns=host)

    def destroy_network(self):
        for host in HOSTS + ["switch"]:
            subprocess.run(["ip", "netns", "del", f"{PREFIX}-{host}"], capture_output=True)

    def faults(self, host, loss=0.0, duplicate=0.0):
        """Random drop on input and duplication (TEE to the destination) on output."""
        run("iptables", "-F", ns=host)
        run("iptables", "-t", "mangle", "-F", ns=host)
        if loss > 0:
            run("iptables", "-A", "INPUT", "-i", f"{PREFIX}{host}0", "-m", "statistic", "--mode", "random",
                "--probability", str(loss), "-j", "DROP", ns=host)
        if duplicate > 0:
            for other in HOSTS:
                if other != host:
                    run("iptables", "-t", "mangle", "-A", "POSTROUTING", "-d", address(other), "-m", "statistic",
                        "--mode", "random", "--probability", str(duplicate), "-j", "TEE", "--gateway",
                        address(other), ns=host)

    def partition(self, host):
        """Drops everything between `host` and the others (both directions)."""
        run("iptables", "-I", "INPUT", "-i", f"{PREFIX}{host}0", "-j", "DROP", ns=host)
        run("iptables", "-I", "OUTPUT", "-o", f"{PREFIX}{host}0", "-j", "DROP", ns=host)

    def heal(self, host):
        run("iptables", "-D", "INPUT", "-i", f"{PREFIX}{host}0", "-j", "DROP", ns=host)
        run("iptables", "-D", "OUTPUT", "-o", f"{PREFIX}{host}0", "-j", "DROP", ns=host)

    def link(self, host, up):
        run("ip", "link", "set", f"{PREFIX}{host}1", "up" if up else "down", ns="switch")

    # --- replicas ------------------------------------------------------------------------------
    def store(self, host):
        return os.path.join(self.workdir, host)

    def cli(self, host, *args, capture=True):
        return run(self.binary, "--store", self.store(host), *args, capture=capture, ns=host)

    def status(self, host):
        out = self.cli(host, "status", "--json").stdout
        return json.loads(out)

    def create_replicas(self):
        owners = {"a": "Ann", "b": "Ben", "c": "Cat"}
        for host in HOSTS:
            self.cli(host, "init", "--name", f"host-{host}", "--device", "phone", "--owner", owners[host])
        self.cli("a", "group", "create")
        token = self.cli("a", "group", "invite", "--uses", str(len(HOSTS) - 1)).stdout.strip()
        # Each joiner asks through a local folder; a's folder sync admits them; they read the answer.
        joining = os.path.join(self.workdir, "joining")
        for host in HOSTS[1:]:
            self.cli(host, "group", "join", token)
            self.cli(host, "sync", "--folder", joining)
        self.cli("a", "sync", "--folder", joining)
        for host in HOSTS[1:]:
            self.cli(host, "sync", "--folder", joining)

    def start_serve(self, host):
        """`serve` listening on its own address, dialing the hosts after it through their proxies."""
        peers = []
        for other in HOSTS[HOSTS.index(host) + 1:]:
            peers += ["--peer", f"{address(other)}:{PROXY_PORT}"]
        logfile = open(os.path.join(self.workdir, f"serve-{host}.log"), "a")
        process = subprocess.Popen(
            ["ip", "netns", "exec", f"{PREFIX}-{host}", self.binary, "--store", self.store(host), "serve",
             "--listen", f"127.0.0.1:{SERVE_PORT}", "--log-level", "info"] + peers,
            stdout=logfile, stderr=logfile, start_new_session=True)
        self.serves[host] = process

    def kill_serve(self, host, sig=signal.SIGKILL):
        process = self.serves.pop(host, None)
        if process:
            os.killpg(process.pid, sig)
            process.wait()

    def start_proxy(self, host, delay_ms, jitter_ms):
        """A delay proxy in `host`'s namespace: address:7071 → 127.0.0.1:7070, each chunk held
        for delay ± jitter milliseconds, order kept per connection."""
        process = subprocess.Popen(
            ["ip", "netns", "exec", f"{PREFIX}-{host}", sys.executable, os.path.abspath(__file__), "--proxy",
             f"{address(host)}:{PROXY_PORT}", f"127.0.0.1:{SERVE_PORT}", str(delay_ms), str(jitter_ms)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.proxies[host] = process

    def stop_all(self):
        for host in list(self.serves):
            self.kill_serve(host, signal.SIGTERM)
        for process in self.proxies.values():
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        self.proxies = {}

    def wait_converged(self, since, bound, expect_ops=None):
        """Seconds from `since` until every replica has one digest (and at least `expect_ops`
        ops), or None after `bound` seconds."""
        while time.monotonic() - since < bound:
            statuses = [self.status(host) for host in HOSTS]
            digests = {status["digest"] for status in statuses}
            if len(digests) == 1 and (expect_ops is None or statuses[0]["ops"] >= expect_ops):
                return time.monotonic() - since
            time.sleep(0.05)
        return None


# --- the delay proxy (runs as its own process inside a namespace) ----------------------------------
def proxy_main(listen, target, delay_ms, jitter_ms):
    listen_host, listen_port = listen.rsplit(":", 1)
    target_host, target_port = target.rsplit(":", 1)
    rng = random.Random(7)

    async def pipe(reader, writer):
        queue = asyncio.Queue()

        async def deliver():
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                wait = due - asyncio.get_running_loop().time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()
            writer.close()

        task = asyncio.create_task(deliver())
        last_due = 0.0
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                delay = max(0.0, (delay_ms + rng.uniform(-jitter_ms, jitter_ms)) / 1000)
                due = max(last_due, asyncio.get_running_loop().time() + delay)  # order is kept
                last_due = due
                await queue.put((due, data))
        except (ConnectionError, OSError):
            pass
        await queue.put((0, None))
        try:
            await task
        except (ConnectionError, OSError):
            pass

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, int(target_port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer),
                             return_exceptions=True)

    async def main():
        server = await asyncio.start_server(handle, listen_host, int(listen_port))
        async with server:
            await server.serve_forever()

    asyncio.run(main())


# --- scenarios -------------------------------------------------------------------------------------
def score_concurrently(bed, round_id, holes, players):
    """Each host scores its own player on `holes`, all hosts at once, as separate processes."""
    errors = []

    def work(host, player):
        try:
            for hole in holes:
                bed.cli(host, "score", round_id, "--player", player, "--hole", str(hole), "--strokes", str(3 + hole % 2))
        except Exception as error:  # reported by the main thread
            errors.append(error)
    threads = [threading.Thread(target=work, args=(host, player)) for host, player in zip(HOSTS, players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def scenarios(bed, results, bounds):
    players = ["Ann", "Ben", "Cat"]
    # Setup: players reach every host, then host a starts a round.
    start = time.monotonic()
    if bed.wait_converged(start, bounds["setup"]) is None:
        raise RuntimeError("the three replicas did not exchange their players")
    round_id = bed.cli("a", "round", "start", "--course", "Morley Field", "--players", ",".join(players)).stdout.strip().split()[-1]
    expected = bed.status("a")["ops"]
    if bed.wait_converged(time.monotonic(), bounds["setup"], expected) is None:
        raise RuntimeError("the round did not reach every host")

    # 1. Concurrent scoring on a clean network, then under 10 % loss and 5 % duplication.
    score_concurrently(bed, round_id, range(1, 4), players)
    expected += 9
    since = time.monotonic()
    results.append(("concurrent scoring, clean network", bed.wait_converged(since, bounds["converge"], expected), 5.0))
    for host in HOSTS:
        bed.faults(host, loss=0.10, duplicate=0.05)
    score_concurrently(bed, round_id, range(4, 7), players)
    expected += 9
    since = time.monotonic()
    results.append(("concurrent scoring, 10% loss + 5% duplication", bed.wait_converged(since, bounds["converge"], expected), 10.0))
    for host in HOSTS:
        bed.faults(host)

    # 2. Partition host a for longer than the dead-peer bound, score on both sides, heal.
    bed.partition("a")
    score_concurrently(bed, round_id, range(7, 9), players)
    expected += 6
    time.sleep(bounds["partition"])
    bed.heal("a")
    since = time.monotonic()
    results.append((f"partition {bounds['partition']:.0f} s (iptables), heal, clean network",
                    bed.wait_converged(since, bounds["converge"], expected), 5.0))

    bed.link("b", up=False)
    score_concurrently(bed, round_id, range(9, 11), players)
    expected += 6
    time.sleep(bounds["partition"])
    bed.link("b", up=True)
    for host in HOSTS:
        bed.faults(host, loss=0.10)
    since = time.monotonic()
    results.append((f"partition {bounds['partition']:.0f} s (link down), heal, 10% loss",
                    bed.wait_converged(since, bounds["converge"], expected), 10.0))
    for host in HOSTS:
        bed.faults(host)

    # 3. kill -9 a serve in the middle of a large delta, restart it.
    bed.kill_serve("c")
    def bulk():
        for hole in range(11, 19):
            for player in players:
                bed.cli("a", "score", round_id, "--player", player, "--hole", str(hole), "--strokes", "4")
    bulk()
    expected += 24
    bed.start_serve("c")
    time.sleep(0.15)
    bed.kill_serve("c")
    bed.start_serve("c")
    since = time.monotonic()
    results.append(("kill -9 of a serve mid-delta, restart", bed.wait_converged(since, bounds["converge"], expected), 5.0))
    verify = bed.cli("c", "verify", "--json", capture=True)
    if json.loads(verify.stdout).get("intact") is not True:
        raise RuntimeError("the killed replica does not verify: " + verify.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=".build/debug/hyzer-peer")
    parser.add_argument("--partition-seconds", type=float, default=30.0,
                        help="longer than the 15 s dead-peer bound, so the heartbeat has to notice")
    parser.add_argument("--goals", action=argparse.BooleanOptionalAction, default=True,
                        help="fail when a scenario converges but misses its goal")
    parser.add_argument("--bound", type=float, default=60.0, help="give up on convergence after this many seconds")
    parser.add_argument("--delay-ms", type=float, default=80.0)
    parser.add_argument("--jitter-ms", type=float, default=40.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", choices=["faults", "discovery"], help="run one of the two sets of scenarios")
    parser.add_argument("--proxy", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.proxy:
        proxy_main(args.proxy[0], args.proxy[1], float(args.proxy[2]), float(args.proxy[3]))
        return 0
    reason = available(("ip",) if args.only == "discovery" else ("ip", "iptables"))
    if reason:
        if os.environ.get("CI"):
            # Under CI (.ci/run sets CI) a test bed that cannot run is a failure, not a skip.
            print(f"nettest cannot run: {reason}; CI must run it as root with iproute2 and iptables", file=sys.stderr)
            return 1
        print(f"nettest skipped: {reason}; run it as root on Linux with iproute2 and iptables")
        return 0
    if not os.access(args.binary, os.X_OK):
        print(f"nettest: no binary at {args.binary}; build it first (swift build)", file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="hyzer-nettest-")
    bed = TestBed(args.binary, workdir, log=print)
    results = []
    notes = []
    failure = None
    if args.only != "discovery":
        try:
            bed.create_network()
            bed.create_replicas()
            for host in HOSTS:
                bed.start_proxy(host, args.delay_ms, args.jitter_ms)
                bed.start_serve(host)
            scenarios(bed, results, {"setup": args.bound, "converge": args.bound, "partition": args.partition_seconds})
        except Exception as error:  # the run's one failure, reported below
            failure = str(error)
        finally:
            bed.stop_all()
            bed.destroy_network()
    if args.only != "faults" and failure is None:
        missing = discovery.tools_missing()
        if missing and os.environ.get("CI"):
            failure = f"the discovery scenarios cannot run: {missing}"
        elif missing:
            print(f"nettest: discovery scenarios skipped: {missing}")
        else:
            found, notes, failure = discovery.run_all(args.binary, os.path.join(workdir, "discovery"), args.bound)
            results += found
    dead_logged = []
    for host in HOSTS:
        path = os.path.join(workdir, f"serve-{host}.log")
        if os.path.exists(path):
            dead_logged += [line.strip() for line in open(path) if "it is gone" in line]
    failed = failure is not None or any(seconds is None or (args.goals and seconds > goal) for _, seconds, goal in results)
    if args.json:
        print(json.dumps({"results": [{"scenario": name, "seconds": seconds, "goalSeconds": goal} for name, seconds, goal in results],
                          "deadPeerLogLines": len(dead_logged), "notes": notes, "failure": failure}, sort_keys=True))
    else:
        print(f"network test bed: 3 hosts, delay {args.delay_ms:.0f} ± {args.jitter_ms:.0f} ms through a proxy, logs in {workdir}")
        for name, seconds, goal in results:
            shown = "did not converge" if seconds is None else f"converged in {seconds:5.2f} s"
            verdict = "" if seconds is None else ("  (goal ≤ %.0f s: %s)" % (goal, "met" if seconds <= goal else "MISSED"))
            print(f"  {name:<52} {shown}{verdict}")
        print(f"  dead peers logged: {len(dead_logged)} line(s)")
        for note in notes:
            print(f"  {note}")
        if failure:
            print(f"nettest failed: {failure}", file=sys.stderr)
    if not failed:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
