#!/usr/bin/env python3
"""Latency of hyzer-peer's folder sync through real Syncthing (docs/folder-sync.md).

Three Syncthing instances on loopback (separate homes; no discovery, relays or NAT; each knows
the other two by address) share one folder. Beside each runs a hyzer-peer replica of one group
with `serve --folder` on its copy of the folder (every --folder-interval seconds). A trial
scores a hole on the first replica and times how long until the other two hold the same op set
(the same `status --json` digest). Trials run with Syncthing's default watcher delay
(fsWatcherDelayS = 10) and with a short one; the script prints each trial, a summary, and how
often Syncthing logged "isn't making sync progress" or "no such file".

    python3 Tests/NetworkTestBed/syncthing_latency.py --binary .build/debug/hyzer-peer

Needs `syncthing` (apt-get install syncthing); without it, it says so and exits 0.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET

NAMES = ["a", "b", "c"]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Syncthing:
    """One Syncthing instance: its home, its ports, its process."""

    def __init__(self, workdir, name, folder):
        self.name = name
        self.home = os.path.join(workdir, f"syncthing-{name}")
        self.folder = folder
        self.gui_port = free_port()
        self.listen_port = free_port()
        self.api_key = f"hyzer-latency-{name}"
        self.log_path = os.path.join(workdir, f"syncthing-{name}.log")
        self.process = None
        output = subprocess.run(["syncthing", "generate", f"--home={self.home}", "--no-default-folder"],
                                check=True, capture_output=True, text=True)
        self.device_id = next(line.split("Device ID:")[1].strip()
                              for line in (output.stdout + output.stderr).splitlines() if "Device ID:" in line)

    def configure(self, peers, watcher_delay):
        """Writes config.xml: loopback only, the peers by address, the shared folder."""
        path = os.path.join(self.home, "config.xml")
        tree = ET.parse(path)
        root = tree.getroot()
        root.find("gui/address").text = f"127.0.0.1:{self.gui_port}"
        root.find("gui/apikey").text = self.api_key
        options = root.find("options")
        settings = {
            "listenAddress": f"tcp://127.0.0.1:{self.listen_port}", "globalAnnounceEnabled": "false",
            "localAnnounceEnabled": "false", "relaysEnabled": "false", "natEnabled": "false",
            "startBrowser": "false", "urAccepted": "-1", "crashReportingEnabled": "false",
            "autoUpgradeIntervalH": "0",
        }
        for key, value in settings.items():
            options.find(key).text = value
        own = root.find("device")
        own.set("name", self.name)
        for peer in peers:
            device = ET.fromstring(ET.tostring(own))
            device.set("id", peer.device_id)
            device.set("name", peer.name)
            device.find("address").text = f"tcp://127.0.0.1:{peer.listen_port}"
            root.append(device)
        folder = ET.fromstring(ET.tostring(root.find("defaults/folder")))
        folder.set("id", "hyzer")
        folder.set("label", "hyzer")
        folder.set("path", self.folder)
        folder.set("fsWatcherDelayS", str(watcher_delay))
        template = folder.find("device")
        for peer in peers:
            device = ET.fromstring(ET.tostring(template))
            device.set("id", peer.device_id)
            folder.append(device)
        root.insert(0, folder)
        tree.write(path)

    def start(self):
        os.makedirs(os.path.join(self.folder, ".stfolder"), exist_ok=True)
        log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            ["syncthing", "serve", f"--home={self.home}", "--no-browser", "--no-restart", "--no-upgrade", "--logflags=3"],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "STNODEFAULTFOLDER": "1"})

    def api(self, path):
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui_port}{path}", headers={"X-API-Key": self.api_key})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())

    def connected_peers(self):
        try:
            return sum(1 for connection in self.api("/rest/system/connections")["connections"].values()
                       if connection["connected"])
        except OSError:
            return 0

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def count(self, text):
        """Log lines holding `text`, leaving out the start-up's missing HTTPS certificate."""
        with open(self.log_path, errors="replace") as log:
            return sum(1 for line in log if text in line and "certificate" not in line)


class Replica:
    """One hyzer-peer store and its `serve --folder`."""

    def __init__(self, binary, workdir, name, folder):
        self.binary = binary
        self.name = name
        self.store = os.path.join(workdir, f"store-{name}")
        self.folder = folder
        self.serve = None
        self.log_path = os.path.join(workdir, f"serve-{name}.log")

    def run(self, *arguments):
        result = subprocess.run([self.binary, *arguments], capture_output=True, text=True,
                                env={**os.environ, "HYZER_STORE": self.store, "NO_COLOR": "1"})
        if result.returncode != 0:
            raise RuntimeError(f"{self.name}: hyzer-peer {' '.join(arguments)}: {result.stderr.strip()}")
        return result.stdout.strip()

    def digest(self):
        return json.loads(self.run("status", "--json"))["digest"]

    def start(self, interval):
        log = open(self.log_path, "w")
        self.serve = subprocess.Popen(
            [self.binary, "serve", "--listen", "127.0.0.1:0", "--folder", self.folder, "--folder-interval", str(interval)],
            stdout=subprocess.DEVNULL, stderr=log, env={**os.environ, "HYZER_STORE": self.store, "NO_COLOR": "1"})

    def stop(self):
        if self.serve and self.serve.poll() is None:
            self.serve.send_signal(2)
            self.serve.wait(timeout=10)


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out after {seconds} s waiting for {what}")


def run_setting(binary, watcher_delay, trials, interval, keep):
    workdir = tempfile.mkdtemp(prefix=f"hyzer-syncthing-{watcher_delay}s-")
    folders = {name: os.path.join(workdir, f"folder-{name}") for name in NAMES}
    instances = [Syncthing(workdir, name, folders[name]) for name in NAMES]
    replicas = [Replica(binary, workdir, name, folders[name]) for name in NAMES]
    try:
        for instance in instances:
            instance.configure([peer for peer in instances if peer is not instance], watcher_delay)
            instance.start()
        wait_for(lambda: all(instance.connected_peers() == 2 for instance in instances), 120, "Syncthing to connect")
        a, b, c = replicas
        a.run("init", "--name", "a", "--owner", "Ann")
        b.run("init", "--name", "b", "--owner", "Ben")
        c.run("init", "--name", "c", "--owner", "Cat")
        a.run("group", "create")
        token = a.run("group", "invite", "--uses", "2")
        # b and c ask through a local folder; a's folder sync admits them; they read the answer.
        joining = os.path.join(workdir, "joining")
        for replica in (b, c):
            replica.run("group", "join", token)
            replica.run("sync", "--folder", joining)
        a.run("sync", "--folder", joining)
        for replica in (b, c):
            replica.run("sync", "--folder", joining)
        round_id = a.run("round", "start", "--course", "Morley Field", "--players", "Ann")
        for replica in replicas:
            replica.start(interval)
        wait_for(lambda: len({replica.digest() for replica in replicas}) == 1, 300, "the replicas to converge first")
        results = []
        for trial in range(trials):
            time.sleep(2)
            started = time.monotonic()
            a.run("score", round_id, "--player", "Ann", "--hole", str(trial + 1), "--strokes", "3")
            target = a.digest()
            arrived = {}
            while len(arrived) < 2 and time.monotonic() - started < 300:
                for replica in (b, c):
                    if replica.name not in arrived and replica.digest() == target:
                        arrived[replica.name] = time.monotonic() - started
                time.sleep(0.1)
            slowest = max(arrived.values()) if len(arrived) == 2 else None
            results.append(slowest)
            shown = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in sorted(arrived.items()))
            print(f"  fsWatcherDelayS={watcher_delay} trial {trial + 1}: {shown}"
                  + ("" if slowest is not None else " (not everywhere after 300 s)"), flush=True)
        stalls = sum(instance.count("isn't making sync progress") for instance in instances)
        missing = sum(instance.count("no such file") for instance in instances)
        return results, stalls, missing, workdir
    finally:
        for replica in replicas:
            replica.stop()
        for instance in instances:
            instance.stop()
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=".build/debug/hyzer-peer")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--delays", default="10,1", help="fsWatcherDelayS values, comma-separated")
    parser.add_argument("--folder-interval", type=int, default=1, help="serve --folder-interval, seconds")
    parser.add_argument("--keep", action="store_true", help="keep the working directories (logs, stores)")
    arguments = parser.parse_args()
    if shutil.which("syncthing") is None:
        print("syncthing latency: skipped, `syncthing` is not installed (apt-get install syncthing)")
        return 0
    binary = os.path.abspath(arguments.binary)
    version = subprocess.run(["syncthing", "--version"], capture_output=True, text=True).stdout.split()[1]
    print(f"Syncthing {version}, three instances on loopback; serve --folder-interval {arguments.folder_interval}")
    for delay in (int(text) for text in arguments.delays.split(",")):
        results, stalls, missing, workdir = run_setting(binary, delay, arguments.trials, arguments.folder_interval,
                                                        arguments.keep)
        done = sorted(seconds for seconds in results if seconds is not None)
        summary = (f"median {statistics.median(done):.1f} s, min {done[0]:.1f} s, max {done[-1]:.1f} s" if done
                   else "no trial converged")
        print(f"fsWatcherDelayS={delay}: score on a until b and c hold it: {summary} over {len(done)}/{len(results)} "
              f"trials; Syncthing logged \"isn't making sync progress\" {stalls}x, \"no such file\" {missing}x"
              + (f" ({workdir})" if arguments.keep else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
