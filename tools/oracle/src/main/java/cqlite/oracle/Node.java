package cqlite.oracle;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.ColumnSpecification;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.service.CassandraDaemon;
import org.apache.cassandra.service.ClientState;
import org.apache.cassandra.service.QueryState;
import org.apache.cassandra.transport.messages.ResultMessage;

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
 *   describe <ks> <file>          DESCRIBE KEYSPACE written to file (a schema.cql)
 *   datadir                       prints the node's data directory
 *   quit                          shuts the node down (so does the end of stdin)
 *
 * Usage: Node <workdir>. Once the node is up it prints "ready <native port>".
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
        ResultMessage.Rows rows = (ResultMessage.Rows) msg;
        List<ColumnSpecification> columns = rows.result.metadata.names;
        for (UntypedResultSet.Row row : UntypedResultSet.create(rows.result))
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

    public static void main(String[] args)
    {
        if (args.length != 1)
        {
            System.err.println("usage: Node <workdir>");
            System.exit(2);
        }
        int rc = 0;
        try
        {
            Path work = Paths.get(args[0]).toAbsolutePath();
            // Full scans page through the whole table: allow slow pages on a busy machine.
            String yaml = Generate.yaml(work, "oa", true)
                          + "read_request_timeout: 120000ms\n"
                          + "range_request_timeout: 120000ms\n";
            Generate.configure(work, yaml);
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
