package cqlite.oracle;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.ColumnSpecification;
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
import org.apache.cassandra.service.StorageProxy;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.transport.messages.ResultMessage;
import org.apache.cassandra.utils.FBUtilities;
import org.apache.cassandra.utils.Pair;
import org.apache.cassandra.utils.concurrent.Future;
import org.apache.cassandra.utils.progress.ProgressEventType;
import org.apache.cassandra.utils.progress.ProgressListener;

/**
 * A single Cassandra 5.0 node that clients reach over the native protocol on
 * 127.0.0.1 (gossip and storage on loopback too, free ports, private data
 * directories under workdir, no JMX), driven by commands on stdin, one per
 * line, each answered on stdout by lines of output and a last line "ok" or
 * "error <message>":
 *
 *   schema <file.cql>             runs every statement of the file (Scenario syntax)
 *   cql <statement>               runs one statement; result rows as tab-separated text
 *   import <ks> <table> <dir>     what `nodetool import` does with its defaults:
 *                                 the SSTables of dir move into the table (verified,
 *                                 levels and repaired state reset, caches
 *                                 invalidated); the table's automatic compaction
 *                                 is disabled first, so that nothing compacts
 *                                 while clients read
 *   flush <ks> <table>            flushes the table's memtable (automatic compaction stays on)
 *   compact <ks> <table>          major compaction of the table
 *   select <ks> <table> <file>    SELECT JSON * now, written to file as "-- select" writes it
 *                                 (a line {"now_in_seconds": N}, then each row's JSON)
 *   describe <ks> <file>          DESCRIBE KEYSPACE ... WITH INTERNALS written to file (a schema.cql)
 *   datadir                       prints the node's data directory
 *   quit                          shuts the node down (so does the end of stdin)
 *
 * and, for a node of a cluster of several:
 *
 *   cql-at <level> <statement>    runs one statement as a coordinator at consistency
 *                                 <level> (ONE, QUORUM, ALL...), reaching the replicas
 *   select-at <level> <ks> <table> <file>
 *                                 SELECT JSON * as a coordinator at <level>, written as
 *                                 "select" writes it
 *   schema-agreement <nodes> <seconds>
 *                                 waits until <nodes> nodes are up in the ring, all
 *                                 with the same schema
 *   describering <ks> <file>      what `nodetool describering` prints, one range per line
 *   repair <ks>                   `nodetool repair <ks>` (incremental, every range
 *                                 this node replicates), waiting for it to end; prints
 *                                 the repair's progress messages
 *   no-pending-repair <ks> <seconds>
 *                                 waits until no SSTable of <ks> here is pending repair: a
 *                                 finished incremental repair marks them repaired later,
 *                                 in the background
 *   sstables <ks>                 one line per live SSTable of <ks> here: table, Data.db
 *                                 file name, repairedAt, pending repair session or "-"
 *   snapshot <tag> [ks...]        `nodetool snapshot -t <tag> [ks...]` (every keyspace,
 *                                 the system ones too, without one)
 *
 * Usage: Node <workdir> [--cluster-name N --address A --seeds S --storage-port P
 * --native-port P --num-tokens T --dc D --rack R --no-hints]; without options
 * the node is a cluster of its own on 127.0.0.1. Once the node is up it prints
 * "ready <native port>".
 */
public final class Node
{
    private Node()
    {
    }

    private static void reply(String line)
    {
        System.out.println(line);
        System.out.flush();
    }

    private static void printRows(ResultMessage msg)
    {
        if (!(msg instanceof ResultMessage.Rows))
            return;
        printRows(UntypedResultSet.create(((ResultMessage.Rows) msg).result));
    }

    private static void printRows(UntypedResultSet rows)
    {
        if (rows == null)
            return;
        List<ColumnSpecification> columns = rows.metadata();
        for (UntypedResultSet.Row row : rows)
        {
            List<String> cells = new ArrayList<>();
            for (ColumnSpecification column : columns)
            {
                cells.add(row.has(column.name.toString())
                          ? column.type.getString(row.getBytes(column.name.toString()))
                          : "null");
            }
            reply(String.join("\t", cells));
        }
    }

    /** SELECT JSON * through the coordinator at `level`, as Generate.selectJson writes it. */
    private static String selectAt(ConsistencyLevel level, String ks, String table)
    {
        if (Schema.instance.getTableMetadata(ks, table) == null)
            throw new IllegalArgumentException("table " + ks + "." + table + " does not exist");
        long now = FBUtilities.nowInSeconds();
        UntypedResultSet rows = QueryProcessor.process("SELECT JSON * FROM " + Generate.quote(ks) + '.'
                                                       + Generate.quote(table), level);
        StringBuilder sb = new StringBuilder();
        sb.append("{\"now_in_seconds\": ").append(now).append("}\n");
        for (UntypedResultSet.Row row : rows)
            sb.append(row.getString("[json]")).append('\n');
        return sb.toString();
    }

    private static void waitForSchemaAgreement(int nodes, long seconds) throws InterruptedException
    {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true)
        {
            Map<String, List<String>> versions = StorageProxy.describeSchemaVersions(false);
            versions.remove(StorageProxy.UNREACHABLE);
            int live = StorageService.instance.getLiveRingMembers().size();
            if (versions.size() == 1 && live >= nodes)
                return;
            if (System.nanoTime() > deadline)
                throw new IllegalStateException("no schema agreement of " + nodes + " nodes in " + seconds + " s: "
                                                + versions + ", " + live + " live");
            Thread.sleep(200);
        }
    }

    private static void waitForNoPendingRepair(String ks, long seconds) throws InterruptedException
    {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true)
        {
            long pending = 0;
            for (ColumnFamilyStore cfs : Keyspace.open(ks).getColumnFamilyStores())
                pending += cfs.getLiveSSTables().stream().filter(r -> r.isPendingRepair()).count();
            if (pending == 0)
                return;
            if (System.nanoTime() > deadline)
                throw new IllegalStateException(pending + " SSTables of " + ks + " still pending repair after " + seconds + " s");
            Thread.sleep(200);
        }
    }

    private static void printSSTables(String ks)
    {
        for (ColumnFamilyStore cfs : Keyspace.open(ks).getColumnFamilyStores())
            for (SSTableReader reader : cfs.getLiveSSTables())
                reply(cfs.name + "\t" + new File(reader.getFilename()).getName() + "\t" + reader.getRepairedAt() + "\t"
                      + (reader.isPendingRepair() ? reader.getPendingRepair().toString() : "-"));
    }

    /**
     * Incremental repair of every range this node replicates, as `nodetool repair <ks>` runs it. The
     * future StorageService returns ends once the sessions are started; the repair has ended when its
     * COMPLETE progress event (sent after success and after failure alike) arrives.
     */
    private static void repair(String ks) throws Exception
    {
        Map<String, String> options = new HashMap<>();
        options.put("incremental", "true");
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        List<String> progress = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch complete = new CountDownLatch(1);
        ProgressListener listener = (tag, event) -> {
            progress.add(event.getType() + " " + event.getMessage());
            if (event.getType() == ProgressEventType.ERROR)
                errors.add(event.getMessage());
            if (event.getType() == ProgressEventType.COMPLETE)
                complete.countDown();
        };
        Pair<Integer, Future<?>> started = StorageService.instance.repair(ks, options, Collections.singletonList(listener));
        if (started.left == 0)
        {
            reply("repair of " + ks + ": nothing to repair");
            return;
        }
        if (started.right != null)
            started.right.get(600, TimeUnit.SECONDS);
        if (!complete.await(600, TimeUnit.SECONDS))
            errors.add("no COMPLETE event after 600 s");
        synchronized (progress)
        {
            for (String line : progress)
                reply(line.replace('\n', ' '));
        }
        if (!errors.isEmpty())
            throw new IllegalStateException("repair of " + ks + " failed: " + errors);
        reply("repair " + started.left + " done");
    }

    private static void importSSTables(String ks, String table, String dir)
    {
        ColumnFamilyStore cfs = Keyspace.open(ks).getColumnFamilyStore(table);
        cfs.disableAutoCompaction();
        // nodetool import's defaults: reset level, clear repaired, verify
        // SSTables and tokens, invalidate caches, no extended verify, move.
        List<String> failed = cfs.importNewSSTables(Collections.singleton(dir), true, true, true, true, true, false, false);
        if (!failed.isEmpty())
            throw new IllegalStateException("import failed for " + failed);
        reply(String.format(Locale.ROOT, "%s.%s\t%d live sstables", ks, table, cfs.getLiveSSTables().size()));
    }

    private static void serve(QueryState state) throws Exception
    {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null)
        {
            line = line.trim();
            if (line.isEmpty())
                continue;
            String[] words = line.split("\\s+");
            try
            {
                switch (words[0])
                {
                    case "quit":
                        reply("ok");
                        return;
                    case "cql":
                        printRows(Generate.execute(state, line.substring(3).trim()));
                        break;
                    case "schema":
                        for (Scenario.Step step : Scenario.parse(new String(Files.readAllBytes(Paths.get(words[1])),
                                                                            StandardCharsets.UTF_8)))
                        {
                            if (step.kind != Scenario.Kind.CQL)
                                throw new IllegalArgumentException("schema files hold CQL statements only: " + step);
                            Generate.execute(state, step.text);
                        }
                        break;
                    case "flush":
                        if (words.length != 3)
                            throw new IllegalArgumentException("usage: flush <keyspace> <table>");
                        Keyspace.open(words[1]).getColumnFamilyStore(words[2])
                                .forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
                        break;
                    case "compact":
                        if (words.length != 3)
                            throw new IllegalArgumentException("usage: compact <keyspace> <table>");
                        Keyspace.open(words[1]).getColumnFamilyStore(words[2]).forceMajorCompaction();
                        break;
                    case "select":
                        if (words.length != 4)
                            throw new IllegalArgumentException("usage: select <keyspace> <table> <file>");
                        Files.write(Paths.get(words[3]), Generate.selectJson(state, words[1] + "." + words[2], 0)
                                                                 .getBytes(StandardCharsets.UTF_8));
                        break;
                    case "describe":
                        if (words.length != 3)
                            throw new IllegalArgumentException("usage: describe <keyspace> <file>");
                        Files.write(Paths.get(words[2]), Generate.describe(state, words[1]).getBytes(StandardCharsets.UTF_8));
                        break;
                    case "datadir":
                        reply(DatabaseDescriptor.getAllDataFileLocations()[0]);
                        break;
                    case "cql-at":
                    {
                        String rest = line.substring("cql-at".length()).trim();
                        int space = rest.indexOf(' ');
                        ConsistencyLevel level = ConsistencyLevel.valueOf(rest.substring(0, space).toUpperCase(Locale.ROOT));
                        printRows(QueryProcessor.process(rest.substring(space + 1).trim(), level));
                        break;
                    }
                    case "select-at":
                        if (words.length != 5)
                            throw new IllegalArgumentException("usage: select-at <level> <keyspace> <table> <file>");
                        Files.write(Paths.get(words[4]),
                                    selectAt(ConsistencyLevel.valueOf(words[1].toUpperCase(Locale.ROOT)), words[2], words[3])
                                        .getBytes(StandardCharsets.UTF_8));
                        break;
                    case "schema-agreement":
                        if (words.length != 3)
                            throw new IllegalArgumentException("usage: schema-agreement <nodes> <seconds>");
                        waitForSchemaAgreement(Integer.parseInt(words[1]), Long.parseLong(words[2]));
                        break;
                    case "describering":
                        if (words.length != 3)
                            throw new IllegalArgumentException("usage: describering <keyspace> <file>");
                        Files.write(Paths.get(words[2]),
                                    (String.join("\n", StorageService.instance.describeRingJMX(words[1])) + "\n")
                                        .getBytes(StandardCharsets.UTF_8));
                        break;
                    case "repair":
                        if (words.length != 2)
                            throw new IllegalArgumentException("usage: repair <keyspace>");
                        repair(words[1]);
                        break;
                    case "no-pending-repair":
                        if (words.length != 3)
                            throw new IllegalArgumentException("usage: no-pending-repair <keyspace> <seconds>");
                        waitForNoPendingRepair(words[1], Long.parseLong(words[2]));
                        break;
                    case "sstables":
                        if (words.length != 2)
                            throw new IllegalArgumentException("usage: sstables <keyspace>");
                        printSSTables(words[1]);
                        break;
                    case "snapshot":
                        if (words.length < 2)
                            throw new IllegalArgumentException("usage: snapshot <tag> [keyspace...]");
                        StorageService.instance.takeSnapshot(words[1], Arrays.copyOfRange(words, 2, words.length));
                        break;
                    case "import":
                        if (words.length != 4)
                            throw new IllegalArgumentException("usage: import <keyspace> <table> <dir>");
                        importSSTables(words[1], words[2], words[3]);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown command '" + words[0] + "'");
                }
                reply("ok");
            }
            catch (Exception e)
            {
                e.printStackTrace(System.err);
                reply("error " + String.valueOf(e).replace('\n', ' '));
            }
        }
    }

    private static Generate.Placement placement(String[] args)
    {
        Generate.Placement p = new Generate.Placement();
        for (int i = 1; i < args.length; i++)
        {
            String option = args[i];
            if (option.equals("--no-hints"))
            {
                p.hints = false;
                continue;
            }
            if (i + 1 >= args.length)
                throw new IllegalArgumentException(option + " needs a value");
            String value = args[++i];
            switch (option)
            {
                case "--cluster-name": p.clusterName = value; break;
                case "--address": p.address = value; break;
                case "--seeds": p.seeds = value; break;
                case "--storage-port": p.storagePort = Integer.parseInt(value); break;
                case "--native-port": p.nativePort = Integer.parseInt(value); break;
                case "--num-tokens": p.numTokens = Integer.parseInt(value); break;
                case "--dc": p.dataCenter = value; break;
                case "--rack": p.rack = value; break;
                default: throw new IllegalArgumentException("unknown option " + option);
            }
        }
        if ((p.dataCenter == null) != (p.rack == null))
            throw new IllegalArgumentException("--dc and --rack go together");
        return p;
    }

    public static void main(String[] args)
    {
        if (args.length < 1)
        {
            System.err.println("usage: Node <workdir> [options]");
            System.exit(2);
        }
        int rc = 0;
        try
        {
            Path work = Paths.get(args[0]).toAbsolutePath();
            Generate.Placement placement = placement(args);
            // Full scans page through the whole table: allow slow pages on a busy machine.
            String yaml = Generate.yaml(work, "oa", true, placement)
                          + "read_request_timeout: 120000ms\n"
                          + "range_request_timeout: 120000ms\n"
                          + "write_request_timeout: 60000ms\n";
            Generate.configure(work, yaml, placement);
            long t0 = System.nanoTime();
            CassandraDaemon daemon = CassandraDaemon.getInstanceForTesting();
            daemon.applyConfig();
            daemon.init(null);
            daemon.start();
            Generate.log(String.format(Locale.ROOT, "node up in %d ms", (System.nanoTime() - t0) / 1_000_000));
            reply("ready " + DatabaseDescriptor.getNativeTransportPort());
            serve(new QueryState(ClientState.forInternalCalls()));
        }
        catch (Throwable t)
        {
            System.err.println("node failed:");
            t.printStackTrace(System.err);
            rc = 1;
        }
        finally
        {
            Generate.exit(rc);
        }
    }
}
