"""A running cluster of Cassandra 5.0 nodes on 127.0.0.1, 127.0.0.2, ... (one
LiveNode each, tools/oracle `oracle.sh node` with placement options): every
node a seed, all started at once, one storage port on every address, small
heaps. Nodes can be stopped and started again on their own data, so that
writes at consistency ONE miss them (hints off) and replicas differ."""
import concurrent.futures
import pathlib
import socket

import live_node


def _free_port_on(addresses):
    """A TCP port free on every one of `addresses`."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind((addresses[0], 0))
            port = s.getsockname()[1]
        try:
            for address in addresses[1:]:
                with socket.socket() as s:
                    s.bind((address, port))
            return port
        except OSError:
            continue
    raise RuntimeError(f"no port free on all of {addresses}")


class LiveCluster:
    def __init__(self, oracle, workdir, placements, cluster_name="cqlite-cluster", heap="512m", hints=False):
        """`placements`: per node a dict with num_tokens and, for GossipingPropertyFileSnitch, dc and rack."""
        self.workdir = pathlib.Path(workdir)
        addresses = [f"127.0.0.{i + 1}" for i in range(len(placements))]
        storage_port = _free_port_on(addresses)
        seeds = ",".join(f"{a}:{storage_port}" for a in addresses)
        self.nodes = []
        for i, (address, placement) in enumerate(zip(addresses, placements)):
            options = ["--cluster-name", cluster_name, "--address", address, "--seeds", seeds,
                       "--storage-port", str(storage_port), "--native-port", str(_free_port_on([address])),
                       "--num-tokens", str(placement.get("num_tokens", 1))]
            if "dc" in placement:
                options += ["--dc", placement["dc"], "--rack", placement["rack"]]
            if not hints:
                options.append("--no-hints")
            node = live_node.LiveNode(oracle, self.workdir / f"node{i + 1}", heap=heap, options=options)
            node.address = address
            self.nodes.append(node)

    def start(self, timeout=600):
        with concurrent.futures.ThreadPoolExecutor(len(self.nodes)) as pool:
            for f in [pool.submit(n.start, timeout) for n in self.nodes]:
                f.result()
        self.wait_for_schema_agreement()
        return self

    def live(self):
        return [n for n in self.nodes if n.proc is not None]

    def wait_for_schema_agreement(self, seconds=180):
        """Until every node up sees all the others up, with one schema."""
        live = self.live()
        for n in live:
            n.command(f"schema-agreement {len(live)} {seconds}")

    def data_dirs(self):
        return [n.workdir / "data" for n in self.nodes]

    def stop(self):
        for n in self.nodes:
            n.stop()
