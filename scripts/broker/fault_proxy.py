#!/usr/bin/env python3
"""A fault-injecting TCP proxy on loopback, for tests of clients whose network fails.

One proxy instance serves one set of clients: it listens on one port per broker and relays
each connection to that broker. Every connection of the instance is faulted together, on
command, reversibly:

  pass         relay bytes as they come (the initial mode; also "restore")
  drop         close every relayed connection at once and refuse new ones (the listening
               ports are closed, so a connect gets ECONNREFUSED, as from a host that is down)
  blackhole    accept and keep connections but relay nothing either way: the proxy stops
               reading, so requests hang and TCP flow control holds the bytes; after
               "pass" they flow on, in order, as after a healed partition (a client that
               gave up and closed meanwhile is noticed then, so "connections" counts it
               until then)
  latency MS   relay every chunk MS milliseconds after it was read, each way (a request
               and its answer take 2*MS longer); order is kept
  status       change nothing

Usage:
  fault_proxy.py serve --control SOCKET --route LISTEN_PORT=HOST:PORT [--route ...]
                 [--listen-host 127.0.0.1]
  fault_proxy.py ctl SOCKET COMMAND [ARG]

Control protocol: a Unix stream socket at SOCKET; one command per line, one answer line per
command: "ok mode=MODE latency_ms=N connections=N" once the change is in force (for drop:
every connection closed and every port closed), or "error WHY". `ctl` sends one command,
prints the answer, and exits 0 on "ok", else 1.

Standard library only (Python 3.9+), so that it runs wherever the broker script does, with
nothing built. Exit status of serve: 0 after SIGTERM or SIGINT, 3 when a listening port is
taken (the caller picks other ports), 1 on other errors. It logs mode changes and
connection counts to stderr.
"""

import argparse
import asyncio
import os
import signal
import socket
import sys
import time

CHUNK = 65536


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} fault_proxy[{os.getpid()}]: {msg}", file=sys.stderr, flush=True)


class Conn:
    """One relayed connection: the client's side, the broker's side, two pumps."""

    def __init__(self, proxy, creader, cwriter):
        self.proxy = proxy
        self.creader, self.cwriter = creader, cwriter
        self.ureader = self.uwriter = None
        self.tasks = []

    def abort(self):
        for w in (self.cwriter, self.uwriter):
            if w is not None:
                w.transport.abort()
        for t in self.tasks:
            t.cancel()

    async def pump(self, reader, writer):
        """Reads in order, stamps each chunk, and a writer task sends it once its time has
        come and the proxy is not blackholed. The reader also waits while blackholed, so no
        bytes are taken off the socket that nobody will relay."""
        queue = asyncio.Queue()

        async def send():
            while True:
                due, data = await queue.get()
                delay = due - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                await self.proxy.flowing.wait()
                if data is None:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()

        sender = asyncio.ensure_future(send())
        self.tasks.append(sender)
        try:
            while True:
                await self.proxy.flowing.wait()
                data = await reader.read(CHUNK)
                due = time.monotonic() + self.proxy.latency_ms / 1000.0
                await queue.put((due, data if data else None))
                if not data:
                    break
            await sender
        except (ConnectionError, OSError):
            pass

    async def run(self, host, port):
        try:
            self.ureader, self.uwriter = await asyncio.wait_for(asyncio.open_connection(host, port), 10)
        except (OSError, asyncio.TimeoutError) as e:
            log(f"upstream {host}:{port} unreachable: {e}")
            self.cwriter.transport.abort()
            return
        a = asyncio.ensure_future(self.pump(self.creader, self.uwriter))
        b = asyncio.ensure_future(self.pump(self.ureader, self.cwriter))
        self.tasks += [a, b]
        try:
            # Kafka connections are not half-closed: when one side ends, the relay ends.
            await asyncio.wait([a, b], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in self.tasks:
                t.cancel()
            for w in (self.cwriter, self.uwriter):
                w.close()  # sends what is buffered, then closes (abort() is drop's)


class Proxy:
    def __init__(self, listen_host, routes):
        self.listen_host = listen_host
        self.routes = routes  # [(listen_port, upstream_host, upstream_port)]
        self.servers = []
        self.conns = set()
        self.mode = "pass"
        self.latency_ms = 0
        self.flowing = asyncio.Event()
        self.flowing.set()

    async def open_ports(self):
        for lport, uhost, uport in self.routes:
            server = await asyncio.start_server(
                lambda r, w, uh=uhost, up=uport: self.accept(r, w, uh, up),
                self.listen_host, lport, reuse_address=True)
            self.servers.append(server)

    def close_ports(self):
        for s in self.servers:
            s.close()
        self.servers = []

    async def accept(self, reader, writer, uhost, uport):
        if self.mode == "drop":
            writer.transport.abort()
            return
        conn = Conn(self, reader, writer)
        self.conns.add(conn)
        try:
            await conn.run(uhost, uport)
        finally:
            self.conns.discard(conn)

    def state(self):
        return f"ok mode={self.mode} latency_ms={self.latency_ms} connections={len(self.conns)}"

    async def command(self, line):
        words = line.split()
        if not words:
            return "error empty command"
        cmd, args = words[0], words[1:]
        if cmd == "status" and not args:
            return self.state()
        if cmd in ("pass", "restore") and not args:
            await self.set_mode("pass", 0)
        elif cmd == "drop" and not args:
            await self.set_mode("drop", 0)
        elif cmd == "blackhole" and not args:
            await self.set_mode("blackhole", 0)
        elif cmd == "latency" and len(args) == 1 and args[0].isdigit():
            await self.set_mode("pass", int(args[0]))
        else:
            return f"error unknown command: {line.strip()}"
        log(f"{line.strip()}: {self.state()}")
        return self.state()

    async def set_mode(self, mode, latency_ms):
        was = self.mode
        self.mode, self.latency_ms = mode, latency_ms
        if mode == "drop":
            self.flowing.set()
            self.close_ports()
            for c in list(self.conns):
                c.abort()
            # Every connection's task ends once aborted; wait, bounded, so that the answer
            # means "all closed".
            deadline = time.monotonic() + 5
            while self.conns and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            return
        if was == "drop":
            await self.open_ports()
        if mode == "blackhole":
            self.flowing.clear()
        else:
            self.flowing.set()

    async def control(self, reader, writer):
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                try:
                    answer = await self.command(line.decode(errors="replace"))
                except OSError as e:
                    answer = f"error {e}"
                writer.write((answer + "\n").encode())
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()


async def serve(args):
    routes = []
    for r in args.route:
        lport, _, upstream = r.partition("=")
        uhost, _, uport = upstream.rpartition(":")
        if not (lport.isdigit() and uport.isdigit() and uhost):
            log(f"bad --route {r!r} (want LISTEN_PORT=HOST:PORT)")
            return 2
        routes.append((int(lport), uhost, int(uport)))
    proxy = Proxy(args.listen_host, routes)
    try:
        await proxy.open_ports()
    except OSError as e:
        log(f"cannot listen: {e}")
        return 3
    if os.path.exists(args.control):
        os.unlink(args.control)
    ctl = await asyncio.start_unix_server(proxy.control, args.control)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    log("relaying " + ", ".join(f"{proxy.listen_host}:{lp} -> {uh}:{up}" for lp, uh, up in routes))
    await stop.wait()
    ctl.close()
    proxy.close_ports()
    for c in list(proxy.conns):
        c.abort()
    try:
        os.unlink(args.control)
    except OSError:
        pass
    log("stopped")
    return 0


def ctl(path, words):
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(15)
            s.connect(path)
            s.sendall((" ".join(words) + "\n").encode())
            answer = b""
            while not answer.endswith(b"\n"):
                data = s.recv(4096)
                if not data:
                    break
                answer += data
    except OSError as e:
        print(f"error {path}: {e}")
        return 1
    text = answer.decode().strip()
    print(text)
    return 0 if text.startswith("ok") else 1


def main():
    p = argparse.ArgumentParser(description="fault-injecting TCP proxy (see the module doc)")
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--control", required=True, help="Unix socket for commands")
    s.add_argument("--route", action="append", required=True, help="LISTEN_PORT=HOST:PORT")
    s.add_argument("--listen-host", default="127.0.0.1")
    c = sub.add_parser("ctl")
    c.add_argument("socket")
    c.add_argument("words", nargs="+")
    args = p.parse_args()
    if args.what == "ctl":
        return ctl(args.socket, args.words)
    return asyncio.run(serve(args))


if __name__ == "__main__":
    sys.exit(main())
