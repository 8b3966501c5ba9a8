package cqlite.oracle;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.cassandra.cql3.CQLStatement;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.service.CassandraDaemon;
import org.apache.cassandra.service.ClientState;
import org.apache.cassandra.service.QueryState;
import org.apache.cassandra.transport.ProtocolVersion;
import org.apache.cassandra.transport.messages.ResultMessage;
import org.apache.cassandra.utils.FBUtilities;

/**
 * Starts a single Cassandra 5.0 node inside this JVM (loopback only, private
 * data directories, free ports, no native transport, no JMX), replays a
 * scenario file through QueryProcessor, then copies the live SSTables of the
 * user keyspaces and a schema.cql per keyspace into the output directory,
 * along with the results of the scenario's "-- select" directives
 * (ks/table.selectN.jsonl) and "-- describe" directives (ks/schema.N.cql).
 *
 * Usage: Generate scenario.cql outdir nb|oa|da workdir
 *
 * The JVM always terminates at the end (normally or on error), which shuts the
 * node down; the caller removes workdir.
 */
public final class Generate
{
    private static final Pattern USE = Pattern.compile("(?is)\\s*USE\\s+(?:\"((?:[^\"]|\"\")+)\"|(\\w+))\\s*");
    private static final boolean VERBOSE = System.getenv("ORACLE_VERBOSE") != null;

    /** Results of "-- select" and "-- describe" directives, written with the SSTables: path relative to outdir -> content. */
    private static final Map<Path, String> selectResults = new LinkedHashMap<>();
    private static final Map<String, Integer> selectCounts = new HashMap<>();
    private static final Map<String, Integer> describeCounts = new HashMap<>();

    private Generate()
    {
    }

    static void log(String msg)
    {
        System.err.println("[generate] " + msg);
        System.err.flush();
    }

    static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    static String yaml(Path work, String format) throws IOException
    {
        return yaml(work, format, false);
    }

    /**
     * Where a node sits in its cluster. The default is a cluster of its own:
     * 127.0.0.1, free ports, one token, SimpleSnitch.
     */
    static final class Placement
    {
        String clusterName = "cqlite-oracle";
        String address = "127.0.0.1";
        String seeds;          // null: the node itself
        int storagePort;       // 0: a free one
        int nativePort;        // 0: a free one
        int numTokens = 1;
        String dataCenter;     // null: SimpleSnitch (datacenter1, rack1)
        String rack;
        boolean hints = true;
    }

    /** The node's cassandra.yaml; with nativeTransport, clients connect on 127.0.0.1 (the port is in the yaml). */
    static String yaml(Path work, String format, boolean nativeTransport) throws IOException
    {
        return yaml(work, format, nativeTransport, new Placement());
    }

    /** The node's cassandra.yaml for a node placed as `placement` says. */
    static String yaml(Path work, String format, boolean nativeTransport, Placement placement) throws IOException
    {
        String compat;
        String sstableFormat;
        switch (format)
        {
            case "nb": compat = "CASSANDRA_4"; sstableFormat = "big"; break;
            case "oa": compat = "NONE"; sstableFormat = "big"; break;
            case "da": compat = "NONE"; sstableFormat = "bti"; break;
            default: throw new IllegalArgumentException("unknown format '" + format + "' (expected nb, oa or da)");
        }
        int storagePort = placement.storagePort != 0 ? placement.storagePort : freePort();
        int nativePort = placement.nativePort != 0 ? placement.nativePort : freePort();
        String seeds = placement.seeds != null ? placement.seeds : placement.address + ":" + storagePort;
        StringBuilder y = new StringBuilder();
        y.append("cluster_name: ").append(placement.clusterName).append('\n')
         .append("num_tokens: ").append(placement.numTokens).append('\n')
         .append("partitioner: org.apache.cassandra.dht.Murmur3Partitioner\n")
         .append("endpoint_snitch: ").append(placement.dataCenter == null ? "SimpleSnitch" : "GossipingPropertyFileSnitch")
         .append('\n')
         .append("listen_address: ").append(placement.address).append('\n')
         .append("rpc_address: ").append(placement.address).append('\n')
         .append("storage_port: ").append(storagePort).append('\n')
         .append("native_transport_port: ").append(nativePort).append('\n')
         .append("start_native_transport: ").append(nativeTransport).append('\n')
         .append("hinted_handoff_enabled: ").append(placement.hints).append('\n')
         .append("auto_bootstrap: false\n")
         .append("seed_provider:\n")
         .append("  - class_name: org.apache.cassandra.locator.SimpleSeedProvider\n")
         .append("    parameters:\n")
         .append("      - seeds: \"").append(seeds).append("\"\n")
         .append("data_file_directories: [").append(work.resolve("data")).append("]\n")
         .append("commitlog_directory: ").append(work.resolve("commitlog")).append('\n')
         .append("saved_caches_directory: ").append(work.resolve("saved_caches")).append('\n')
         .append("hints_directory: ").append(work.resolve("hints")).append('\n')
         .append("cdc_raw_directory: ").append(work.resolve("cdc_raw")).append('\n')
         .append("commitlog_sync: periodic\n")
         .append("commitlog_sync_period: 10000ms\n")
         .append("disk_failure_policy: stop\n")
         .append("commit_failure_policy: stop\n")
         .append("auto_snapshot: false\n")
         .append("incremental_backups: false\n")
         .append("snapshot_before_compaction: false\n")
         .append("uuid_sstable_identifiers_enabled: false\n")
         .append("compaction_throughput: 0MiB/s\n")
         // Scenarios may write to hundreds of tables between flushes; 1 MiB
         // slabs per memtable would fill the heap.
         .append("memtable_allocation_type: unslabbed_heap_buffers\n")
         .append("storage_compatibility_mode: ").append(compat).append('\n')
         .append("sstable:\n")
         .append("  selected_format: ").append(sstableFormat).append('\n');
        return y.toString();
    }

    static Set<String> userKeyspaces()
    {
        return new TreeSet<>(Schema.instance.getUserKeyspaces());
    }

    static void flushAll()
    {
        for (String ks : userKeyspaces())
        {
            for (ColumnFamilyStore cfs : Keyspace.open(ks).getColumnFamilyStores())
            {
                cfs.disableAutoCompaction();
                cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
            }
        }
    }

    static void compact(String qualified)
    {
        int dot = qualified.indexOf('.');
        String ks = qualified.substring(0, dot);
        String table = qualified.substring(dot + 1);
        ColumnFamilyStore cfs = Keyspace.open(ks).getColumnFamilyStore(table);
        cfs.disableAutoCompaction();
        cfs.forceMajorCompaction();
    }

    /**
     * Runs one statement on this node only (single-node cluster): writes go
     * straight to the local storage engine, counters included, without the
     * coordinator's replica/availability machinery.
     *
     * Each statement gets a QueryState of its own, as each request does on a
     * real node: a QueryState caches the write timestamp and the "now" (which
     * sets TTL expiry and tombstone deletion times) of its first use.
     */
    static ResultMessage execute(QueryState session, String cql)
    {
        QueryState state = new QueryState(session.getClientState());
        QueryOptions options = QueryOptions.forInternalCalls(ConsistencyLevel.ONE, Collections.emptyList());
        CQLStatement statement = QueryProcessor.instance.parse(cql, state, options);
        options.prepare(statement.getBindVariables());
        statement.validate(state.getClientState());
        return statement.executeLocally(state, options);
    }

    static String quote(String identifier)
    {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /**
     * SELECT JSON * over a whole table at an explicit query time (the node's
     * clock plus offset seconds), unpaged. Keeps the result for copyOut: a
     * first line {"now_in_seconds": N}, then the [json] text of each row in
     * the order the node returned them.
     */
    static int select(QueryState session, String qualified, long offset)
    {
        String text = selectJson(session, qualified, offset);
        int n = text.split("\n", -1).length - 2;
        int index = selectCounts.merge(qualified, 1, Integer::sum);
        selectResults.put(Paths.get(qualified.substring(0, qualified.indexOf('.')),
                                    qualified.substring(qualified.indexOf('.') + 1) + ".select" + index + ".jsonl"),
                          text);
        if (VERBOSE)
            log(String.format(Locale.ROOT, "select %s #%d: %d rows", qualified, index, n));
        return n;
    }

    /** The text select keeps: the query time line, then each row's [json]. */
    static String selectJson(QueryState session, String qualified, long offset)
    {
        QueryState state = new QueryState(session.getClientState());
        int dot = qualified.indexOf('.');
        String ks = qualified.substring(0, dot);
        String table = qualified.substring(dot + 1);
        if (Schema.instance.getTableMetadata(ks, table) == null)
            throw new IllegalArgumentException("table " + qualified + " does not exist");
        long now = FBUtilities.nowInSeconds() + offset;
        QueryOptions options = QueryOptions.create(ConsistencyLevel.ONE, Collections.emptyList(), false, -1, null,
                                                   ConsistencyLevel.SERIAL, ProtocolVersion.V5, null,
                                                   Long.MIN_VALUE, now);
        String cql = "SELECT JSON * FROM " + quote(ks) + '.' + quote(table);
        CQLStatement statement = QueryProcessor.instance.parse(cql, state, options);
        options.prepare(statement.getBindVariables());
        statement.validate(state.getClientState());
        ResultMessage msg = statement.executeLocally(state, options);
        UntypedResultSet rows = UntypedResultSet.create(((ResultMessage.Rows) msg).result);
        StringBuilder sb = new StringBuilder();
        sb.append("{\"now_in_seconds\": ").append(now).append("}\n");
        int n = 0;
        for (UntypedResultSet.Row row : rows)
        {
            sb.append(row.getString("[json]")).append('\n');
            n++;
        }
        return sb.toString();
    }

    static String describe(QueryState state, String ks)
    {
        ResultMessage msg = execute(state, "DESCRIBE KEYSPACE \"" + ks.replace("\"", "\"\"") + "\" WITH INTERNALS");
        UntypedResultSet rows = UntypedResultSet.create(((ResultMessage.Rows) msg).result);
        StringBuilder sb = new StringBuilder();
        for (UntypedResultSet.Row row : rows)
        {
            String stmt = row.getString("create_statement").trim();
            sb.append(stmt);
            if (!stmt.endsWith(";"))
                sb.append(';');
            sb.append("\n\n");
        }
        return sb.toString();
    }

    /**
     * The keyspace's schema as it is now, kept for copyOut as ks/schema.N.cql (N counting 1, 2, ... per
     * keyspace): a comment line per table naming its live SSTable generations ("-- generations of t: 3 4"),
     * then DESCRIBE KEYSPACE. A generation written since the previous describe was written with this schema.
     */
    static void describeNow(QueryState state, String ks)
    {
        if (Schema.instance.getKeyspaceMetadata(ks) == null)
            throw new IllegalArgumentException("keyspace " + ks + " does not exist");
        StringBuilder sb = new StringBuilder();
        for (ColumnFamilyStore cfs : Keyspace.open(ks).getColumnFamilyStores())
        {
            List<Long> generations = new ArrayList<>();
            for (SSTableReader sstable : cfs.getLiveSSTables())
                generations.add(Long.parseLong(sstable.descriptor.id.toString()));
            Collections.sort(generations);
            sb.append("-- generations of ").append(cfs.name).append(':');
            for (long g : generations)
                sb.append(' ').append(g);
            sb.append('\n');
        }
        sb.append('\n').append(describe(state, ks));
        int index = describeCounts.merge(ks, 1, Integer::sum);
        selectResults.put(Paths.get(ks, "schema." + index + ".cql"), sb.toString());
    }

    static int copyOut(QueryState state, Path outDir) throws IOException
    {
        int copied = 0;
        for (String ks : userKeyspaces())
        {
            Path ksDir = outDir.resolve(ks);
            Files.createDirectories(ksDir);
            for (ColumnFamilyStore cfs : Keyspace.open(ks).getColumnFamilyStores())
            {
                Path tableDir = ksDir.resolve(cfs.name + "-" + cfs.metadata.id.toHexString());
                Files.createDirectories(tableDir);
                List<SSTableReader> live = new ArrayList<>(cfs.getLiveSSTables());
                int files = 0;
                for (SSTableReader sstable : live)
                {
                    for (String path : sstable.getAllFilePaths())
                    {
                        Path src = Paths.get(path);
                        Files.copy(src, tableDir.resolve(src.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
                        files++;
                    }
                }
                copied += live.size();
                System.out.println(String.format(Locale.ROOT, "%s.%s\t%d sstables\t%d files\t%s",
                                                 ks, cfs.name, live.size(), files, tableDir));
            }
            Files.write(ksDir.resolve("schema.cql"), describe(state, ks).getBytes(StandardCharsets.UTF_8));
        }
        for (Map.Entry<Path, String> result : selectResults.entrySet())
        {
            Path file = outDir.resolve(result.getKey());
            Files.createDirectories(file.getParent());
            Files.write(file, result.getValue().getBytes(StandardCharsets.UTF_8));
        }
        return copied;
    }

    static void run(Path scenarioFile, Path outDir) throws Exception
    {
        List<Scenario.Step> steps = Scenario.parse(new String(Files.readAllBytes(scenarioFile), StandardCharsets.UTF_8));

        long t0 = System.nanoTime();
        CassandraDaemon daemon = CassandraDaemon.getInstanceForTesting();
        daemon.applyConfig();
        daemon.init(null);
        daemon.start();
        log(String.format(Locale.ROOT, "node up in %d ms", (System.nanoTime() - t0) / 1_000_000));

        QueryState state = new QueryState(ClientState.forInternalCalls());
        for (Scenario.Step step : steps)
        {
            if (VERBOSE)
                log(String.format(Locale.ROOT, "%6d ms %s", (System.nanoTime() - t0) / 1_000_000, step));
            try
            {
                switch (step.kind)
                {
                    case CQL:
                        Matcher use = USE.matcher(step.text);
                        if (use.matches())
                        {
                            // USE needs a logged-in client; switch the internal state instead.
                            String ks = use.group(1) != null ? use.group(1).replace("\"\"", "\"")
                                                             : use.group(2).toLowerCase(Locale.ROOT);
                            if (Schema.instance.getKeyspaceMetadata(ks) == null)
                                throw new IllegalArgumentException("keyspace " + ks + " does not exist");
                            state = new QueryState(ClientState.forInternalCalls(ks));
                            break;
                        }
                        execute(state, step.text);
                        break;
                    case FLUSH:
                        flushAll();
                        break;
                    case COMPACT:
                        compact(step.text);
                        break;
                    case SLEEP:
                        Thread.sleep((long) (Double.parseDouble(step.text) * 1000));
                        break;
                    case SELECT:
                        select(state, step.text, step.offset);
                        break;
                    case DESCRIBE:
                        describeNow(state, step.text);
                        break;
                }
            }
            catch (Exception e)
            {
                throw new RuntimeException(scenarioFile + ": " + step + " failed: " + e, e);
            }
        }
        log(String.format(Locale.ROOT, "scenario replayed (%d steps) at %d ms", steps.size(), (System.nanoTime() - t0) / 1_000_000));

        Files.createDirectories(outDir);
        int n = copyOut(state, outDir);
        log(String.format(Locale.ROOT, "copied %d sstables and %d select results at %d ms",
                          n, selectResults.size(), (System.nanoTime() - t0) / 1_000_000));
    }

    public static void main(String[] args)
    {
        if (args.length != 4)
        {
            System.err.println("usage: Generate <scenario.cql> <outdir> <nb|oa|da> <workdir>");
            System.exit(2);
        }
        int rc = 0;
        try
        {
            Path scenario = Paths.get(args[0]);
            Path outDir = Paths.get(args[1]).toAbsolutePath();
            String format = args[2];
            Path work = Paths.get(args[3]).toAbsolutePath();
            configure(work, yaml(work, format));
            run(scenario, outDir);
        }
        catch (Throwable t)
        {
            System.err.println("generate failed:");
            t.printStackTrace(System.err);
            rc = 1;
        }
        finally
        {
            exit(rc);
        }
    }

    /** Writes the yaml and the node's directories under work, and the system properties of a throw-away node. */
    static void configure(Path work, String yamlText) throws IOException
    {
        for (String d : new String[]{ "data", "commitlog", "saved_caches", "hints", "cdc_raw" })
            Files.createDirectories(work.resolve(d));
        Path yamlFile = work.resolve("cassandra.yaml");
        Files.write(yamlFile, yamlText.getBytes(StandardCharsets.UTF_8));
        System.setProperty("cassandra.config", yamlFile.toUri().toString());
        System.setProperty("cassandra-foreground", "yes");
        System.setProperty("cassandra.storagedir", work.toString());
        System.setProperty("cassandra.skip_wait_for_gossip_to_settle", "0");
        System.setProperty("cassandra.superuser_setup_delay_ms", "0");
        // Throw-away node: no need to make schema and system tables durable.
        System.setProperty("cassandra.test.flush_local_schema_changes", "false");
        System.setProperty("cassandra.unsafesystem", "true");
        System.setProperty("cassandra.ring_delay_ms", "1000");
        System.setProperty("cassandra.memtable_row_overhead_computation_step", "100");
        System.setProperty("cassandra.shutdown_announce_in_ms", "0");
    }

    /** configure, and the data centre and rack GossipingPropertyFileSnitch reads, when placement names them. */
    static void configure(Path work, String yamlText, Placement placement) throws IOException
    {
        configure(work, yamlText);
        if (placement.dataCenter == null)
            return;
        Path rackdc = work.resolve("cassandra-rackdc.properties");
        Files.write(rackdc, ("dc=" + placement.dataCenter + "\nrack=" + placement.rack + "\n").getBytes(StandardCharsets.UTF_8));
        System.setProperty("cassandra-rackdc.properties", rackdc.toUri().toString());
    }

    /** Ends the JVM with rc, which shuts the node down. */
    static void exit(int rc)
    {
        System.out.flush();
        System.err.flush();
        // Whatever happened, bring the node down: exit runs Cassandra's own
        // shutdown hooks; a watchdog halts the JVM if they get stuck.
        final int code = rc;
        Thread watchdog = new Thread(() -> {
            try
            {
                Thread.sleep(20_000);
            }
            catch (InterruptedException ignored)
            {
            }
            Runtime.getRuntime().halt(code == 0 ? 0 : code);
        }, "exit-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        System.exit(code);
    }
}
