"""The network test bed's discovery scenarios (docs/discovery.md, "Tests on real responders").

Hosts in network namespaces on a bridge of their own, each with its own D-Bus and avahi-daemon
in a private mount namespace (a per-host directory bound over /run/dbus and /run/avahi-daemon),
so that every mDNS packet stays on that bridge. `serve --discover` on three members with no
address converges; a member killed and started again is dialed again; a device holding only an
invitation token joins; avahi-browse sees our service with its TXT record, and our browser finds
an avahi-publish'ed one (an outsider's replay of a member's stale record, which the handshake
refuses and which is dialed at most a few times); a host whose responder is not running syncs
with its named peer after one warning line; an idle `serve --discover` amid foreign services
stays idle. Nothing runs in the machine's own network namespace.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import time

PREFIX = "hzdt"
SUBNET = "10.213.78"
MEMBERS = ["a", "b", "c"]
PHONE = "p"        # holds only an invitation token
OUTSIDER = "o"     # copies a member's record with avahi-publish
NO_RESPONDER = "n"  # a member whose host runs D-Bus but no avahi-daemon
HOSTS = MEMBERS + [PHONE, OUTSIDER, NO_RESPONDER]
OUTSIDER_PORT = 7090


def tools_missing():
    """Why the discovery scenarios cannot run here (what to install), or None."""
    for tool in ("avahi-daemon", "avahi-browse", "avahi-publish", "dbus-daemon", "unshare"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (apt-get install avahi-daemon avahi-utils dbus)"
    return None


class DiscoveryBed:
    def __init__(self, binary, workdir):
        self.binary = os.path.abspath(binary)
        self.workdir = workdir
        self.serves = {}
        self.avahis = []  # pids of the avahi-daemons started, to stop by pid
        self.buses = []  # pids of the dbus-daemons started, stopped after the avahi-daemons
        self.helpers = []  # other processes started (avahi-publish, listeners)

    # --- hosts ------------------------------------------------------------------------------------
    def ns(self, host):
        return f"{PREFIX}-{host}"

    def address(self, host):
        return f"{SUBNET}.{HOSTS.index(host) + 1}"

    def host_dir(self, host, *parts):
        return os.path.join(self.workdir, "hosts", host, *parts)

    def command(self, host, args):
        """`args` in `host`'s network namespace and a private mount namespace in which the
        host's own directories stand for /run/dbus, /run/avahi-daemon and /etc/avahi/services
        (the static services its avahi-daemon publishes: none but the flood's)."""
        script = ('mount --bind "$1" /run/dbus && mount --bind "$2" /run/avahi-daemon && mount --bind "$3" /etc/avahi/services'
                  ' && shift 3 && exec "$@"')
        return ["ip", "netns", "exec", self.ns(host), "unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                self.host_dir(host, "dbus"), self.host_dir(host, "avahi"), self.host_dir(host, "services")] + list(args)

    def run(self, host, *args, input_text=None, check=True, timeout=60):
        result = subprocess.run(self.command(host, args), text=True, input=input_text, capture_output=True, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"{host}: {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
        return result

    def cli(self, host, *args, input_text=None, check=True):
        return self.run(host, self.binary, "--store", self.host_dir(host, "store"), *args, input_text=input_text, check=check)

    def create_network(self):
        self.destroy_network()
        os.makedirs("/run/dbus", exist_ok=True)
        os.makedirs("/run/avahi-daemon", exist_ok=True)
        os.makedirs("/etc/avahi/services", exist_ok=True)

        def ip(*args, ns=None):
            command = (["ip", "netns", "exec", ns] if ns else []) + ["ip"] + list(args)
            subprocess.run(command, check=True, capture_output=True)
        switch = f"{PREFIX}-switch"
        subprocess.run(["ip", "netns", "add", switch], check=True)
        ip("link", "add", "br0", "type", "bridge", ns=switch)
        ip("link", "set", "br0", "up", ns=switch)
        for host in HOSTS:
            for sub in ("dbus", "avahi", "services"):
                os.makedirs(self.host_dir(host, sub), exist_ok=True)
            subprocess.run(["ip", "netns", "add", self.ns(host)], check=True)
            ip("link", "add", f"{PREFIX}{host}0", "type", "veth", "peer", "name", f"{PREFIX}{host}1")
            ip("link", "set", f"{PREFIX}{host}0", "netns", self.ns(host))
            ip("link", "set", f"{PREFIX}{host}1", "netns", switch)
            ip("link", "set", f"{PREFIX}{host}1", "master", "br0", ns=switch)
            ip("link", "set", f"{PREFIX}{host}1", "up", ns=switch)
            ip("addr", "add", f"{self.address(host)}/24", "dev", f"{PREFIX}{host}0", ns=self.ns(host))
            ip("link", "set", f"{PREFIX}{host}0", "up", ns=self.ns(host))
            ip("link", "set", "lo", "up", ns=self.ns(host))

    def destroy_network(self):
        for host in HOSTS + ["switch"]:
            subprocess.run(["ip", "netns", "del", f"{PREFIX}-{host}"], capture_output=True)

    def start_responders(self):
        """D-Bus on every host, avahi-daemon on all but NO_RESPONDER; raises when one cannot start."""
        for host in HOSTS:
            dbus = self.run(host, "dbus-daemon", "--system", "--fork", "--nopidfile", "--print-pid")
            self.buses.append(int(dbus.stdout.split()[0]))
            if host == NO_RESPONDER:
                continue
            self.start_avahi(host)
        # Each daemon announces its host name once it has probed it.
        for host in MEMBERS:
            self.wait_announced(host)

    def start_avahi(self, host):
        config = self.host_dir(host, "avahi-daemon.conf")
        with open(config, "w") as file:
            file.write(f"[server]\nhost-name={PREFIX}-{host}\nuse-ipv4=yes\nuse-ipv6=no\ncache-entries-max=40000\n"
                       f"allow-interfaces={PREFIX}{host}0\n[publish]\npublish-hinfo=no\npublish-workstation=no\n")
        self.run(host, "avahi-daemon", "-D", "--no-chroot", "--no-rlimits", "-f", config)
        pid_file = self.host_dir(host, "avahi", "pid")
        deadline = time.monotonic() + 10
        while not os.path.exists(pid_file) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not os.path.exists(pid_file):
            raise RuntimeError(f"avahi-daemon did not start on host {host}")
        self.avahis.append(int(open(pid_file).read().strip()))

    def wait_announced(self, host):
        deadline = time.monotonic() + 15
        while self.run(host, "avahi-resolve", "-n", f"{PREFIX}-{host}.local", check=False, timeout=10).returncode != 0:
            if time.monotonic() > deadline:
                raise RuntimeError(f"avahi-daemon on host {host} never announced its name")
            time.sleep(0.2)

    def restart_avahi(self, host):
        """Stops the host's avahi-daemon by its pid and starts it again."""
        pid = int(open(self.host_dir(host, "avahi", "pid")).read().strip())
        stop_daemon(pid)
        self.avahis = [daemon for daemon in self.avahis if daemon != pid]
        self.start_avahi(host)
        self.wait_announced(host)

    # --- replicas and serves ----------------------------------------------------------------------
    def create_replicas(self):
        owners = {"a": "Ann", "b": "Ben", "c": "Cat", "n": "Ned", "p": "Pia"}
        for host in MEMBERS + [NO_RESPONDER, PHONE]:
            self.cli(host, "init", "--name", f"host-{host}", "--device", "phone", "--owner", owners[host])
        self.cli("a", "group", "create")
        token = self.cli("a", "group", "invite", "--uses", "3").stdout.strip()
        joining = os.path.join(self.workdir, "joining")
        for host in ["b", "c", NO_RESPONDER]:
            self.cli(host, "group", "join", token)
            self.cli(host, "sync", "--folder", joining)
        self.cli("a", "sync", "--folder", joining)
        for host in ["b", "c", NO_RESPONDER]:
            self.cli(host, "sync", "--folder", joining)

    def start_serve(self, host, *args):
        log = open(os.path.join(self.workdir, f"serve-{host}.log"), "a")
        process = subprocess.Popen(self.command(host, [self.binary, "--store", self.host_dir(host, "store"), "serve",
                                                       "--log-level", "info"] + list(args)),
                                   stdout=log, stderr=log, start_new_session=True)
        self.serves[host] = process
        return process

    def kill_serve(self, host, sig=signal.SIGTERM):
        process = self.serves.pop(host, None)
        if process:
            os.killpg(process.pid, sig)
            process.wait()

    def log(self, host):
        path = os.path.join(self.workdir, f"serve-{host}.log")
        return open(path).read() if os.path.exists(path) else ""

    def listening_port(self, host, bound=10):
        deadline = time.monotonic() + bound
        while time.monotonic() < deadline:
            match = re.search(r"listening on [0-9.]+:(\d+)", self.log(host))
            if match:
                return int(match.group(1))
            time.sleep(0.05)
        raise RuntimeError(f"serve on host {host} never said where it listens")

    def digest(self, host):
        return json.loads(self.cli(host, "status", "--json").stdout).get("digest")

    def wait_same(self, hosts, since, bound):
        while time.monotonic() - since < bound:
            if len({self.digest(host) for host in hosts}) == 1:
                return time.monotonic() - since
            time.sleep(0.05)
        return None

    def stop_all(self):
        for host in list(self.serves):
            self.kill_serve(host)
        for process in self.helpers:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        # avahi-daemon first, while its bus is up: one that loses its bus while it quits spins.
        for pid in self.avahis + self.buses:
            stop_daemon(pid)
        self.avahis = []
        self.buses = []


def stop_daemon(pid, bound=5):
    """SIGTERM to a daemon this test started, then SIGKILL if it is still running after `bound` s."""
    def running():
        try:
            return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + bound
        while running() and time.monotonic() < deadline:
            time.sleep(0.05)
        if not running():
            return


def browse(bed, host, bound=10):
    """avahi-browse -rpt _hyzer._tcp on `host`: resolved services as {name: (address, port, txt)}."""
    found = {}
    for line in bed.run(host, "avahi-browse", "-rpt", "_hyzer._tcp", timeout=bound).stdout.splitlines():
        fields = line.split(";")
        if fields[0] == "=" and len(fields) >= 10 and fields[2] == "IPv4":
            txt = dict(re.findall(r'"([^"=]+)=([^"]*)"', fields[9]))
            found[fields[3]] = (fields[7], int(fields[8]), txt)
    return found


def scenarios(bed, results, bound):
    """Each scenario appends (name, seconds or None, goal seconds)."""
    # 1. Two members with nothing typed, then a third: time to its first completed sync.
    bed.cli("a", "player", "add", "Dana")
    for host in ("a", "b"):
        bed.start_serve(host, "--discover")
    results.append(("discover: two members, no address", bed.wait_same(["a", "b"], time.monotonic(), bound), 5.0))
    since = time.monotonic()
    bed.start_serve("c", "--discover")
    results.append(("discover: a new host's first completed sync", bed.wait_same(["a", "c"], since, bound), 3.0))
    bed.cli("b", "player", "add", "Eve")
    results.append(("discover: three members converge", bed.wait_same(MEMBERS, time.monotonic(), bound), 3.0))

    # 2. Interoperability: avahi-browse on the outsider sees a member's service and its TXT.
    services = browse(bed, OUTSIDER)
    a_port = bed.listening_port("a")
    # avahi publishes each host's IPv6 link-local address too (AAAA over IPv4): either may resolve.
    ours = [(name, record) for name, record in services.items()
            if record[1] == a_port and (record[0] == bed.address("a") or record[0].startswith("fe80:"))]
    if not ours:
        raise RuntimeError(f"avahi-browse on another host did not see host a's service: {services}")
    name, (_, _, txt) = ours[0]
    if set(txt) - {"v", "n", "r", "g", "d", "j"} or txt.get("v") != "1" or len(txt.get("g", "")) != 16:
        raise RuntimeError(f"host a's TXT record is not what docs/discovery.md says: {txt}")
    for word in ("host-a", "Ann", "Ben", "Cat"):
        if any(word.lower() in value.lower() for value in list(txt.values()) + [name]):
            raise RuntimeError(f"host a's advertisement names {word}: {name} {txt}")

    # 3. A member killed (no goodbye) and started again is dialed again. Its old record, seen
    # by the outsider before, is now stale: a record no member runs under any more.
    c_port = bed.listening_port("c")
    stale = [record for record in browse(bed, OUTSIDER).values() if record[1] == c_port]
    if not stale:
        raise RuntimeError("avahi-browse on another host did not see host c's service")
    bed.kill_serve("c", signal.SIGKILL)
    bed.cli("a", "player", "add", "Gus")
    since = time.monotonic()
    bed.start_serve("c", "--discover")
    results.append(("discover: a member killed and restarted is dialed again", bed.wait_same(MEMBERS, since, bound), 5.0))

    # 4. The outsider replays that stale record with avahi-publish at its own address (without
    # `d`, so that every member dials it): our browsers find it, dial it at most 3 times each,
    # and the members still converge.
    dials = os.path.join(bed.workdir, "outsider-connections")
    bed.helpers.append(subprocess.Popen(bed.command(OUTSIDER, ["python3", "-c", OUTSIDER_LISTENER, str(OUTSIDER_PORT), dials]),
                                        start_new_session=True))
    replayed = [f"{key}={value}" for key, value in sorted(stale[0][2].items()) if key != "d"]
    bed.helpers.append(subprocess.Popen(bed.command(OUTSIDER, ["avahi-publish", "-s", "replayed-record", "_hyzer._tcp",
                                                               str(OUTSIDER_PORT)] + replayed),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    deadline = time.monotonic() + bound
    while "replayed-record" not in "".join(bed.log(host) for host in MEMBERS) and time.monotonic() < deadline:
        time.sleep(0.1)
    if "replayed-record" not in "".join(bed.log(host) for host in MEMBERS):
        raise RuntimeError("no member's browser found the avahi-publish'ed service")
    bed.cli("c", "player", "add", "Fay")
    converged = bed.wait_same(MEMBERS, time.monotonic(), bound)
    time.sleep(5)
    count = len(open(dials).read()) if os.path.exists(dials) else 0
    # Each member gives it up after 3 dials without proof, for a minute.
    if count > 3 * len(MEMBERS):
        raise RuntimeError(f"the outsider was dialed {count} times in a few seconds")
    results.append((f"discover: converge beside a replayed record ({count} dials to it)", converged, 3.0))

    # 5. A phone holding only a token: `group join --token-file - && serve --discover`.
    token = bed.cli("a", "group", "invite", "--uses", "1").stdout.strip()
    bed.cli(PHONE, "group", "join", "--token-file", "-", input_text=token + "\n")
    since = time.monotonic()
    bed.start_serve(PHONE, "--discover")
    # A member re-advertises within 2 s of the invitation, avahi probes the new name for about a
    # second, the phone asks once a second: a few seconds, with room for a loaded machine.
    results.append(("discover: a phone with only a token joins and syncs", bed.wait_same(MEMBERS + [PHONE], since, bound), 10.0))

    # 6. No responder: one warning line, and the named peer syncs all the same.
    since = time.monotonic()
    bed.start_serve(NO_RESPONDER, "--discover", "--peer", f"{bed.address('a')}:{bed.listening_port('a')}")
    results.append(("discover: no responder, named peer only", bed.wait_same(["a", NO_RESPONDER], since, bound), 5.0))
    warnings = [line for line in bed.log(NO_RESPONDER).splitlines() if "discovery is off" in line]
    if len(warnings) != 1:
        raise RuntimeError(f"a host without a responder logged {len(warnings)} warning lines, not one: {warnings}")


def responder_restart(bed, results):
    """avahi-daemon restarted under a running `serve --discover` (host c): its browse and its
    advertisement come back by themselves. First only c and a b that advertises but does not
    dial: b's write reaches c only if c's browse works again. Then only c and an a that dials
    but does not advertise: a's write reaches c only if c is advertised again."""
    for host in list(bed.serves):
        bed.kill_serve(host)
    bed.start_serve("c", "--discover")
    bed.listening_port("c")
    time.sleep(1)
    bed.restart_avahi("c")
    bed.start_serve("b", "--listen", "0.0.0.0:0")
    bed.cli("b", "player", "add", "Jo")
    results.append(("discover: c's avahi-daemon restarted, c's browse finds b again",
                    bed.wait_same(["b", "c"], time.monotonic(), 30), 15.0))
    bed.kill_serve("b")
    bed.start_serve("a", "--discover", "--no-advertise")
    bed.cli("a", "player", "add", "Kim")
    results.append(("discover: c's avahi-daemon restarted, c is advertised again",
                    bed.wait_same(["a", "c"], time.monotonic(), 30), 15.0))
    bed.kill_serve("a")


def process_ticks(process):
    """utime + stime of a process, in clock ticks (/proc/PID/stat)."""
    fields = open(f"/proc/{process.pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def resident_kib(process):
    for line in open(f"/proc/{process.pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def flood(bed, results, notes, count=5000):
    """The outsider's avahi-daemon publishes `count` foreign `_hyzer._tcp` services (static
    service files, one in ten with a TXT record past our bound): the members' writes still
    converge at once, and their memory stays bounded."""
    for host in MEMBERS + [PHONE]:
        if host not in bed.serves:
            bed.start_serve(host, "--discover")
    if bed.wait_same(MEMBERS + [PHONE], time.monotonic(), 30) is None:
        raise RuntimeError("the members did not converge before the flood")
    before = {host: resident_kib(bed.serves[host]) for host in MEMBERS}
    ticks_before = {host: process_ticks(bed.serves[host]) for host in MEMBERS}
    directory = bed.host_dir(OUTSIDER, "services")
    for index in range(count):
        txt = f"<txt-record>v=1</txt-record><txt-record>n={index:016x}</txt-record><txt-record>r=0</txt-record>" \
              f"<txt-record>g={index * 7919 % 2**64:016x}</txt-record>"
        if index % 10 == 0:
            txt += "".join(f"<txt-record>x{k}={'y' * 200}</txt-record>" for k in range(4))
        with open(os.path.join(directory, f"flood-{index}.service"), "w") as file:
            file.write(f'<?xml version="1.0" standalone="no"?><service-group><name>flood-{index}</name>'
                       f"<service><type>_hyzer._tcp</type><port>{1024 + index % 60000}</port>{txt}</service></service-group>")
    bed.run(OUTSIDER, "avahi-daemon", "--reload")
    deadline = time.monotonic() + 60
    seen = 0
    while time.monotonic() < deadline:
        seen = sum(1 for line in bed.run("b", "avahi-browse", "-pt", "_hyzer._tcp", timeout=30).stdout.splitlines()
                   if "flood-" in line)
        if seen >= count * 0.9:
            break
        time.sleep(2)
    notes.append(f"flood: {seen} of {count} foreign services seen by another host's avahi-browse")
    bed.cli("b", "player", "add", "Ivy")
    # The group's usual time (the clean network's goal): the flood's resolutions take the members'
    # CPU (8 at a time), so a loaded machine takes seconds more than an idle one (0.67 s).
    results.append((f"discover: a write converges amid a flood of {count} services", bed.wait_same(MEMBERS + [PHONE], time.monotonic(), 60), 5.0))
    time.sleep(10)  # the browsers work through the flood's resolutions
    after = {host: resident_kib(bed.serves[host]) for host in MEMBERS}
    used = max(process_ticks(bed.serves[host]) - ticks_before[host] for host in MEMBERS)
    per_second = os.sysconf("SC_CLK_TCK")
    notes.append(f"flood: the busiest member's serve used {used / per_second:.2f} s of CPU from the flood's start "
                 f"to 10 s after the write")
    growth = max(after[host] - before[host] for host in MEMBERS)
    notes.append("flood: resident memory of the members' serve " + ", ".join(
        f"{host} {before[host] / 1024:.1f} → {after[host] / 1024:.1f} MiB" for host in MEMBERS))
    if growth > 64 * 1024:
        raise RuntimeError(f"a serve grew by {growth / 1024:.0f} MiB during the flood")
    for name in os.listdir(directory):
        os.remove(os.path.join(directory, name))
    bed.run(OUTSIDER, "avahi-daemon", "--reload")


def idle_ticks(bed, notes, seconds=20):
    """A lone `serve --discover` amid foreign mDNS traffic: its CPU clock ticks over `seconds`
    (utime + stime from /proc): discovery never wakes the sync engine."""
    for host in list(bed.serves):
        bed.kill_serve(host)
    for process in bed.helpers:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    bed.helpers = []
    serve = bed.start_serve(PHONE, "--discover")
    bed.listening_port(PHONE)
    time.sleep(3)
    for index in range(5):  # foreign services come and stay on the LAN meanwhile
        bed.helpers.append(subprocess.Popen(bed.command(OUTSIDER, ["avahi-publish", "-s", f"foreign-{index}", "_hyzer._tcp",
                                                                   str(7100 + index), "v=1", f"n={index:016x}", "g=0000000000000000"]),
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    before = process_ticks(serve)
    time.sleep(seconds)
    used = process_ticks(serve) - before
    per_second = os.sysconf("SC_CLK_TCK")
    notes.append(f"idle serve --discover, {seconds} s amid foreign services: {used} CPU clock ticks "
                 f"({used / per_second / seconds * 100:.2f} % of a core)")
    if used / per_second > 0.2:  # 1 % of a core: an engine or a loop woken by mDNS traffic
        raise RuntimeError(f"an idle serve --discover used {used} clock ticks in {seconds} s")


def sync_once(bed, results):
    """`sync --discover` on a member whose serve is stopped: one sync with the one member
    serving (the phone), none with the foreign services."""
    bed.cli("a", "player", "add", "Hal")
    since = time.monotonic()
    output = bed.cli("a", "sync", "--discover", "--for", "3").stdout
    lines = [line for line in output.splitlines() if line.startswith("synced with")]
    if len(lines) != 1 or f"at {bed.address(PHONE)}:" not in lines[0]:
        raise RuntimeError(f"sync --discover did not sync once with the phone alone: {output!r}")
    results.append(("discover: sync --discover --for 3 synced with the one member serving",
                    bed.wait_same(["a", PHONE], since, 10), 5.0))


# A listener that accepts, counts each connection with a byte in a file, and closes after a
# second without a word: an outsider that cannot complete a handshake.
OUTSIDER_LISTENER = """
import socket, sys, threading, time
server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("0.0.0.0", int(sys.argv[1]))); server.listen(64)
def hold(connection):
    time.sleep(1); connection.close()
while True:
    connection, _ = server.accept()
    open(sys.argv[2], "a").write("x")
    threading.Thread(target=hold, args=(connection,), daemon=True).start()
"""


def run_all(binary, workdir, bound):
    """Runs the discovery scenarios; returns (results, notes, failure)."""
    bed = DiscoveryBed(binary, workdir)
    results = []
    notes = []
    failure = None
    try:
        bed.create_network()
        bed.start_responders()
        bed.create_replicas()
        scenarios(bed, results, bound)
        idle_ticks(bed, notes)
        sync_once(bed, results)
        responder_restart(bed, results)
        flood(bed, results, notes)
    except Exception as error:  # the run's one failure, reported by the caller
        failure = f"discovery: {error}"
    finally:
        bed.stop_all()
        bed.destroy_network()
    return results, notes, failure
