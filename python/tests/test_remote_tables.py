"""``Tablebase(url=...)`` against a real ``mill-serve`` over the same small tables as the local
``Tablebase(dir)``: the same answers to every call; and a dead, slow or garbage-speaking server is
a clear ``TablebaseServerError``, never a hang. tools/tests/python.rs sets MILL_SERVE."""

import http.server
import os
import random
import socket
import subprocess
import threading
import time

import pytest

import millstone
from millstone import Tablebase, TablebaseServerError

RANKS = [["a7", "d7", "g7"], ["b6", "d6", "f6"], ["c5", "d5", "e5"],
         ["a4", "b4", "c4", "e4", "f4", "g4"], ["c3", "d3", "e3"], ["b2", "d2", "f2"], ["a1", "d1", "g1"]]


def _start_server(binary, tables):
    """A mill-serve on a free port over `tables`, once its files are open; (process, url)."""
    proc = subprocess.Popen(
        [binary, "--tables", tables, "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = proc.stdout.readline()
    assert "http://" in line, f"mill-serve said {line!r}"
    url = line.split("http://", 1)[1].strip().rstrip("/")
    url = "http://" + url
    deadline = time.monotonic() + 60
    while True:
        try:
            tb = Tablebase(url=url, timeout=5)
            if tb._impl._get("/api/v1/info", {})["ready"]:
                return proc, url
        except TablebaseServerError:
            pass
        assert time.monotonic() < deadline, "mill-serve not ready in 60 s"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def mill_serve():
    path = os.environ.get("MILL_SERVE")
    if not path:
        pytest.skip("MILL_SERVE is not set (tools/tests/python.rs sets it)")
    return path


@pytest.fixture(scope="module")
def server(mill_serve, table_dir):
    proc, url = _start_server(mill_serve, table_dir)
    yield url
    proc.kill()
    proc.wait()


def _random_fen(rng, counter=True):
    cells = rng.sample(list(millstone.POINTS), 6)
    board = {q: ("W" if i < 3 else "B") for i, q in enumerate(cells)}
    text = "/".join("".join(board.get(q, ".") for q in r) for r in RANKS)
    c = rng.randrange(100) if counter else 0
    return f"{text} {rng.choice('wb')} 0 0 {c} 120"


def _without_spoiled_distance(d):
    """A local probe dict as the server can give it: the server gives no distance for a result
    that the 100-ply rule spoils (its stored distance is only an ordering key there)."""
    if d is None or d["wdl"] in ("win", "loss", "draw"):
        return d
    return dict(d, plies_to_mill=None)


def test_remote_answers_equal_local(server, table_dir):
    local = Tablebase(table_dir)
    remote = Tablebase(url=server)
    assert remote.url == server and "url=" in repr(remote)
    for rules in [("nine", True), ("nine", False), ("twelve", True)]:
        assert remote.count(*rules) == local.count(*rules), rules
    assert remote.count("nine", True)[0] >= 1
    rng = random.Random(5)
    checked = decisive = spoiled = 0
    while checked < 150:
        p = millstone.Position.from_fen(_random_fen(rng))
        # Also positions after a move or two: mills, removals, the other side to move.
        for _ in range(rng.randrange(3)):
            if p.is_over() or not p.legal_moves():
                break
            p.play(rng.choice(p.legal_moves()))
        lp, rp = local.probe(p), remote.probe(p)
        assert rp == _without_spoiled_distance(lp), p.fen()
        lm, rm = local.probe_moves(p), remote.probe_moves(p)
        if lm is None:
            assert rm is None, p.fen()
        else:
            assert [m for m, _ in rm] == [m for m, _ in lm], p.fen()
            assert [d for _, d in rm] == [_without_spoiled_distance(d) for _, d in lm], p.fen()
            spoiled += any(d["wdl"] in ("cursed_win", "blessed_loss") for _, d in lm)
        assert remote.best_move(p) == local.best_move(p), p.fen()
        decisive += lp is not None and lp["real"] != "draw"
        checked += 1
    assert decisive > 20, decisive
    # Outside the tables: the placing phase (no placing files here), rules the server has no
    # tables of; both sides say None.
    for p in [millstone.Position(), millstone.Position("twelve"), millstone.Position("nine", flying=False)]:
        assert local.probe(p) is None and remote.probe(p) is None
        assert local.probe_moves(p) is None and remote.probe_moves(p) is None
        assert local.best_move(p) is None and remote.best_move(p) is None
    with pytest.raises(NotImplementedError):
        remote.sample(10)


def test_bad_arguments():
    with pytest.raises(TypeError):
        Tablebase()
    with pytest.raises(TypeError):
        Tablebase("/tmp", url="http://127.0.0.1:1")
    with pytest.raises(ValueError):
        Tablebase(url="ftp://127.0.0.1:1")
    with pytest.raises(ValueError):
        Tablebase(url="127.0.0.1:8080")
    with pytest.raises(ValueError):
        Tablebase(url="http://127.0.0.1:1", timeout=0)


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_dead_url_is_a_clear_error():
    port = _free_port()
    t = time.monotonic()
    with pytest.raises(TablebaseServerError, match="cannot reach the table server"):
        Tablebase(url=f"http://127.0.0.1:{port}", timeout=5)
    assert time.monotonic() - t < 5


def test_silent_server_times_out():
    # Connections are accepted by the kernel (the backlog) but never answered.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    try:
        t = time.monotonic()
        with pytest.raises(TablebaseServerError, match="no answer within 0.5 s"):
            Tablebase(url=f"http://127.0.0.1:{s.getsockname()[1]}", timeout=0.5)
        assert time.monotonic() - t < 3
    finally:
        s.close()


def test_trickling_server_times_out():
    # Headers at once, then the body a byte at a time: every read is quick, the whole is not.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    stop = threading.Event()

    def trickle():
        conn, _ = s.accept()
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        # At most 5 s, so that a client without a deadline fails (the answer cut short)
        # instead of hanging the suite.
        for _ in range(100):
            if stop.is_set():
                break
            try:
                conn.sendall(b" ")
            except OSError:
                break
            time.sleep(0.05)
        conn.close()

    threading.Thread(target=trickle, daemon=True).start()
    try:
        t = time.monotonic()
        with pytest.raises(TablebaseServerError, match="no answer within 0.5 s"):
            Tablebase(url=f"http://127.0.0.1:{s.getsockname()[1]}", timeout=0.5)
        assert time.monotonic() - t < 3
    finally:
        stop.set()
        s.close()


def test_not_http_is_a_clear_error():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)

    def babble():
        conn, _ = s.accept()
        conn.recv(4096)
        conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\nhello\r\n\r\n")
        conn.close()

    threading.Thread(target=babble, daemon=True).start()
    try:
        with pytest.raises(TablebaseServerError, match="not an HTTP answer"):
            Tablebase(url=f"http://127.0.0.1:{s.getsockname()[1]}", timeout=5)
    finally:
        s.close()


class _Garbage(http.server.BaseHTTPRequestHandler):
    """A valid /api/v1/info, and garbage for positions."""

    def do_GET(self):  # noqa: N802 - the handler's API
        if self.path.startswith("/api/v1/info"):
            body = b'{"api":"v1","rule_sets":[],"ready":true}'
        elif "fen=" in self.path and "nine" in self.path:
            body = b"<html>surprise</html>"
        else:
            body = b'{"category":"brilliant","moves":[]}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_garbage_is_a_clear_error():
    srv = http.server.HTTPServer(("127.0.0.1", 0), _Garbage)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        tb = Tablebase(url=f"http://127.0.0.1:{srv.server_port}", timeout=5)
        assert tb.count() == (0, 0)
        with pytest.raises(TablebaseServerError, match="not JSON"):
            tb.probe(millstone.Position())
        with pytest.raises(TablebaseServerError, match="unknown category"):
            tb.probe(millstone.Position("twelve"))
    finally:
        srv.shutdown()
        srv.server_close()


def test_server_gone_after_start(mill_serve, table_dir):
    proc, url = _start_server(mill_serve, table_dir)
    tb = Tablebase(url=url, timeout=5)
    p = millstone.Position.from_fen(_random_fen(random.Random(1), counter=False))
    assert tb.probe(p) is not None
    proc.kill()
    proc.wait()
    other = millstone.Position.from_fen(_random_fen(random.Random(2), counter=False))
    with pytest.raises(TablebaseServerError, match="cannot reach"):
        tb.probe(other)
