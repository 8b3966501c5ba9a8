"""S3Proxy (tools/bench/s3proxy, the version pinned in its pom.xml, built and cached by
tools/maven_tool.sh) on a free port of 127.0.0.1, storing objects in a directory (its
filesystem backend, one file per object), with AWS Signature V4 authentication of a key
and secret made for the run; a bucket is made at the start. Stopped by stop(), however
the test ends."""
import os
import pathlib
import secrets
import socket
import subprocess
import time

import conftest

REGION = "us-east-1"
# boto3's settings for stores that take no flexible checksums (botocore reads them from the environment).
CHECKSUMS_WHEN_REQUIRED = {"AWS_REQUEST_CHECKSUM_CALCULATION": "when_required",
                           "AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def classpath():
    """The server's classpath (maven_tool_build bench-s3proxy, as bench/run_s3_bench.sh builds it)."""
    script = (f'source "{conftest.REPO}/tools/maven_tool.sh" && '
              f'maven_tool_build bench-s3proxy "{conftest.REPO}/tools/bench/s3proxy" >&2 && '
              'printf %s "$MAVEN_TOOL_CLASSPATH"')
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise AssertionError(f"could not build tools/bench/s3proxy: {proc.stderr[-3000:]}")
    return proc.stdout


class S3ProxyServer:
    def __init__(self, root, bucket):
        import boto3
        import botocore.config

        self.root = pathlib.Path(root)
        self.storage = self.root / "storage"
        (self.storage / bucket).mkdir(parents=True, exist_ok=True)
        self.bucket = bucket
        self.endpoint = f"http://127.0.0.1:{free_port()}"
        self.key_id, self.secret = "cqlite-spark-job", secrets.token_hex(16)
        properties = self.root / "s3proxy.properties"
        properties.write_text(f"s3proxy.endpoint={self.endpoint}\ns3proxy.authorization=aws-v2-or-v4\n"
                              f"s3proxy.identity={self.key_id}\ns3proxy.credential={self.secret}\n"
                              f"jclouds.provider=filesystem\njclouds.identity={self.key_id}\n"
                              f"jclouds.credential={self.secret}\njclouds.filesystem.basedir={self.storage}\n")
        properties.chmod(0o600)
        self.log = open(self.root / "s3proxy.log", "w")
        self.proc = subprocess.Popen(["java", "-Xmx512m", "-cp", classpath(), "org.gaul.s3proxy.Main",
                                      "--properties", str(properties)], stdout=self.log, stderr=subprocess.STDOUT)
        # S3Proxy refuses the checksum headers boto3 sends by default ("not implemented").
        self.client = boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                                   aws_access_key_id=self.key_id, aws_secret_access_key=self.secret,
                                   config=botocore.config.Config(request_checksum_calculation="when_required",
                                                                 response_checksum_validation="when_required"))
        deadline = time.monotonic() + 120
        while True:
            try:
                self.client.head_bucket(Bucket=bucket)
                break
            except Exception:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError("S3Proxy did not start: " + (self.root / "s3proxy.log").read_text()[-3000:])
                time.sleep(0.5)

    def environment(self):
        """The variables cqlite, boto3, iceberg_readers and the REST catalog server take the store from."""
        return {"CQLITE_S3_ENDPOINT": self.endpoint, "AWS_ENDPOINT_URL": self.endpoint,
                "AWS_ACCESS_KEY_ID": self.key_id, "AWS_SECRET_ACCESS_KEY": self.secret, "AWS_REGION": REGION,
                "AWS_DEFAULT_REGION": REGION, **CHECKSUMS_WHEN_REQUIRED}

    def upload(self, path, key):
        self.client.upload_file(str(path), self.bucket, key)

    def keys(self, prefix=""):
        out = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
            out.extend(o["Key"] for o in page.get("Contents", []))
        return sorted(out)

    def stop(self):
        from s3_server import stop_server

        stop_server(self.proc, self.log)


def clean_environment():
    """Removes the AWS variables that would point clients elsewhere than the server."""
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN", "CQLITE_S3_PART_SIZE"):
        os.environ.pop(name, None)
