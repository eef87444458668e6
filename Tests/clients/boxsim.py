"""A real `boxsim serve` process for the client tests, and its control API (request log, settings, apps)."""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

DEVELOPER_TOKEN = "boxsim-client-test-token"


def binary():
    """`$BOXSIM_BIN`, else the debug build beside the package (what `swift build` makes)."""
    path = os.environ.get("BOXSIM_BIN") or os.path.join(
        os.path.dirname(__file__), "..", "..", ".build", "debug", "boxsim")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"boxsim binary not found at {path} (build it with `swift build --product boxsim` "
                           "or set BOXSIM_BIN)")
    return os.path.abspath(path)


class BoxSim:
    """Starts boxsim on a free loopback port with the control API; `stop()` ends it and deletes its data."""

    def __init__(self, extra_args=(), seed=None):
        self.work = tempfile.mkdtemp(prefix="boxsim-clients-")
        ready = os.path.join(self.work, "ready")
        args = [binary(), "serve", "--data", os.path.join(self.work, "data"), "--port", "0", "--ready-file", ready,
                "--developer-token", DEVELOPER_TOKEN, "--developer-token-lifetime", "0", "--control",
                "--exit-with-parent", *extra_args]
        if seed:
            args += ["--seed", seed]
        self.stderr = open(os.path.join(self.work, "stderr.log"), "wb")
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.stderr, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not read_text(ready):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("boxsim did not start")
            time.sleep(0.02)
        self.base_url = read_text(ready)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stderr.close()
        shutil.rmtree(self.work, ignore_errors=True)

    def control(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + "/_control/" + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return json.loads(text) if text else None

    def requests(self):
        """boxsim's request log (one dict per request: method, path, query, status, range, ...)."""
        return self.control("GET", "requests")["entries"]

    def listing_queries(self, folder_id):
        """The parsed query of each logged `GET /2.0/folders/{folder_id}/items`, in order."""
        path = f"/2.0/folders/{folder_id}/items"
        return [urllib.parse.parse_qs(entry["query"] or "") for entry in self.requests()
                if entry["method"] == "GET" and entry["path"] == path]

    def clear_requests(self):
        self.control("DELETE", "requests")


def read_text(path):
    """The stripped text of a file, or "" when it does not exist yet."""
    try:
        with open(path) as handle:
            return handle.read().strip()
    except FileNotFoundError:
        return ""


def pattern(size, seed=1):
    """`size` reproducible bytes that differ at every offset (a hash chain), so a misplaced byte shows."""
    out = bytearray()
    block = seed.to_bytes(8, "little")
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


def redirect_location(url):
    """The `Location` of the redirect `url` answers with (an authorize page approving at once), not followed."""
    class Stop(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None
    try:
        urllib.request.build_opener(Stop).open(url, timeout=10)
    except urllib.error.HTTPError as redirect:
        if redirect.code in (302, 303):
            return redirect.headers["Location"]
        raise
    raise AssertionError(f"no redirect from {url}")
