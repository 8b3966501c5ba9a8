"""A real S3-compatible server on 127.0.0.1 for the tests, and a TCP proxy in front of it that faults.

S3Server runs moto's server (`python -m moto.server`, pinned in requirements.txt) on a free port, with
request authentication on: every request must carry a valid AWS Signature V4 of an access key the
server knows. The first few requests, unauthenticated, make an IAM user allowed everything on S3, its
access key, and the bucket. `S3_UPLOAD_PART_MIN_SIZE` is lowered so that the tests' small files can go
up as multipart uploads (AWS's minimum part size is 5 MiB; cqlite's CQLITE_S3_PART_SIZE is set to
match in the tests).

S3Proxy passes bytes between a client and the server and can
  - drop the connection when a request for a part (`?partNumber=N&uploadId=`) starts, once or always,
  - stop, after a given number of requests, as a server that is shut down: it closes its listening
    socket and every connection, so that later connections are refused;
and counts the requests, and the multipart uploads begun, that went through it.
"""
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import threading
import time

BUCKET = "lake"
REGION = "us-east-1"
# How many requests moto serves without authentication: create_user, put_user_policy,
# create_access_key, create_bucket.
_SETUP_REQUESTS = 4


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class S3Server:
    def __init__(self, root, part_min_size=1024):
        import boto3

        self.root = pathlib.Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ)
        env.update({"INITIAL_NO_AUTH_ACTION_COUNT": str(_SETUP_REQUESTS),
                    "S3_UPLOAD_PART_MIN_SIZE": str(part_min_size),
                    "AWS_ACCESS_KEY_ID": "setup", "AWS_SECRET_ACCESS_KEY": "setup"})
        self.log = open(self.root / "moto.log", "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError("moto's server did not start: "
                                         + (self.root / "moto.log").read_text()[-3000:])
                time.sleep(0.2)
        setup = dict(endpoint_url=self.endpoint, region_name=REGION, aws_access_key_id="setup",
                     aws_secret_access_key="setup")
        iam = boto3.client("iam", **setup)
        iam.create_user(UserName="cqlite")
        iam.put_user_policy(UserName="cqlite", PolicyName="s3", PolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="cqlite")["AccessKey"]
        self.key_id, self.secret = key["AccessKeyId"], key["SecretAccessKey"]
        boto3.client("s3", **setup).create_bucket(Bucket=BUCKET)
        self.client = boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                                   aws_access_key_id=self.key_id, aws_secret_access_key=self.secret)

    def environment(self, endpoint=None):
        """The variables cqlite (and iceberg_readers) take the store from."""
        return {"CQLITE_S3_ENDPOINT": endpoint or self.endpoint, "AWS_ACCESS_KEY_ID": self.key_id,
                "AWS_SECRET_ACCESS_KEY": self.secret, "AWS_REGION": REGION}

    def keys(self, prefix=""):
        out = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
            out.extend(o["Key"] for o in page.get("Contents", []))
        return sorted(out)

    def open_uploads(self):
        return self.client.list_multipart_uploads(Bucket=BUCKET).get("Uploads", [])

    def stop(self):
        stop_server(self.proc, self.log)


def stop_server(proc, log):
    """Stops a server process the tests started (SIGTERM, then SIGKILL after 30 s) and closes its log."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    log.close()


_REQUEST_LINE = re.compile(rb"(GET|PUT|POST|HEAD|DELETE) (\S+) HTTP/1\.1\r\n")


class S3Proxy:
    def __init__(self, upstream_port, drop_part=None, drop_times=None, stop_after=None):
        self.upstream_port = upstream_port
        self.drop_part, self.drop_times, self.stop_after = drop_part, drop_times, stop_after
        self.requests = 0       # request lines seen
        self.uploads_begun = 0  # CreateMultipartUpload requests seen
        self.drops = 0
        self.stopped = False
        self._lock = threading.Lock()
        self._sockets = []
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                if self.stopped:
                    client.close()
                    upstream.close()
                    return
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _inspect(self, data):
        """Counts the requests starting in `data`; whether to cut the connection before passing it on."""
        cut = False
        with self._lock:
            for match in _REQUEST_LINE.finditer(data):
                self.requests += 1
                target = match.group(2)
                if match.group(1) == b"POST" and b"uploads=" in target:
                    self.uploads_begun += 1
                if (self.drop_part is not None and match.group(1) == b"PUT"
                        and f"partNumber={self.drop_part}&uploadId=".encode() in target
                        and (self.drop_times is None or self.drops < self.drop_times)):
                    self.drops += 1
                    cut = True
                if self.stop_after is not None and self.requests > self.stop_after:
                    cut = True
                    self._stop_locked()
        return cut

    def _pump(self, source, sink, from_client):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if from_client and self._inspect(data):
                    break
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def _stop_locked(self):
        if self.stopped:
            return
        self.stopped = True
        try:
            self.listener.close()
        except OSError:
            pass
        for s in self._sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def stop(self):
        with self._lock:
            self._stop_locked()
