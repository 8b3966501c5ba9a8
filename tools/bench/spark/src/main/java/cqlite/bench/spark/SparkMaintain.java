package cqlite.bench.spark;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.iceberg.Table;
import org.apache.iceberg.actions.DeleteOrphanFiles;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;

/**
 * What a user without CQLite runs to maintain an Iceberg table that many
 * small commits left behind: Iceberg's Spark procedures (Spark local mode,
 * the Iceberg Spark runtime) on a table of a JDBC catalog kept in SQLite, the
 * alternative bench/run_maintain_bench.sh times against `cqlite maintain`.
 *
 *   SparkMaintain <catalog.db> <warehouse-dir> <catalog-name> <namespace> <table>
 *                 <delete-ratio> <small-file-bytes> <target-file-bytes> <retain-last> <orphans: yes|no>
 *
 * In one SparkSession, one after the other (the equivalent of
 * `cqlite maintain --delete-threshold R --small-file-size S --target-file-size T
 * --expire-older-than 0s --retain-last N --orphan-age 0s`):
 * <ol>
 * <li>rewrite_data_files, bin-pack: a data file is rewritten when its
 *     file-scoped position deletes cover at least R of its rows
 *     (delete-ratio-threshold) or it is smaller than S (min-file-size-bytes),
 *     into files of T (target-file-size-bytes); a single such file is enough
 *     (min-input-files 1); delete files that no longer apply to any live data
 *     file are dropped (remove-dangling-deletes);</li>
 * <li>rewrite_position_delete_files: the remaining position delete files
 *     merged (min-input-files 2), dangling ones dropped. Iceberg 1.10 fails
 *     this procedure on tables with list or map columns when it has delete
 *     files to read ("Invalid partition field parent", apache/iceberg issue
 *     15080); that failure is recorded as the step's "error" and the run goes
 *     on, any other failure ends it;</li>
 * <li>expire_snapshots older than now (taken after step 2), keeping the last N,
 *     and the files only they referenced deleted;</li>
 * <li>with orphans=yes, the orphan files (older than now) removed under the
 *     table's data/ and metadata/ directories only (a table CQLite wrote
 *     keeps its fold state under cqlite/ in the table's location, which is no
 *     file of the Iceberg table and must not be taken for an orphan). The
 *     remove_orphan_files procedure refuses ages under 24 hours, so this step
 *     goes through the action the procedure runs, as its error message
 *     advises: SparkActions.deleteOrphanFiles(table).olderThan(now).location(dir).</li>
 * </ol>
 * Prints one JSON line on stdout:
 *   {"jvm_start_ms": JVM start to main, "session_ms": SparkSession up,
 *    "maintain_ms": the four steps, "steps": [{"name", "call", "ms", "result": {column: value}, "rows"}]}
 * ("result" is the procedure's first output row, "rows" how many it
 * returned; for the orphan files, "result" is {"orphan_files": count}).
 * The catalog is opened without creating or altering its tables
 * (jdbc.init-catalog-tables=false, schema version V1) and without caching.
 */
public final class SparkMaintain
{
    private SparkMaintain()
    {
    }

    private static String quote(String s)
    {
        return "'" + s.replace("'", "''") + "'";
    }

    private static void jsonString(StringBuilder sb, String s)
    {
        sb.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            char c = s.charAt(i);
            if (c == '"' || c == '\\')
                sb.append('\\').append(c);
            else if (c < 0x20)
                sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            else
                sb.append(c);
        }
        sb.append('"');
    }

    private static String now()
    {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC)
                                .format(Instant.now());
    }

    private static String procedureName(String sql)
    {
        int start = sql.indexOf(".system.") + ".system.".length();
        return sql.substring(start, sql.indexOf('(', start));
    }

    /** Removes the orphan files under dir (older than olderThanMs), timed, as one step. */
    private static void deleteOrphans(SparkSession spark, Table table, String dir, long olderThanMs, List<String> steps)
    {
        String call = "SparkActions.get(spark).deleteOrphanFiles(table).olderThan(" + olderThanMs + ").location(" + dir + ")";
        System.err.println("SparkMaintain: " + call);
        long start = System.nanoTime();
        DeleteOrphanFiles.Result result =
            SparkActions.get(spark).deleteOrphanFiles(table).olderThan(olderThanMs).location(dir).execute();
        long ms = (System.nanoTime() - start) / 1_000_000;
        long removed = 0;
        for (String ignored : result.orphanFileLocations())
            removed++;
        StringBuilder sb = new StringBuilder("{\"name\": \"delete_orphan_files\", \"call\": ");
        jsonString(sb, call);
        sb.append(", \"ms\": ").append(ms).append(", \"result\": {\"orphan_files\": ").append(removed)
          .append("}, \"rows\": ").append(removed).append('}');
        steps.add(sb.toString());
    }

    /** Runs one CALL, times it and appends its step object to steps. */
    private static void call(SparkSession spark, String sql, List<String> steps)
    {
        call(spark, sql, steps, null);
    }

    /**
     * The same; a failure whose message holds {@code tolerated} (when not
     * null) is recorded as the step's "error" instead of ending the run.
     */
    private static void call(SparkSession spark, String sql, List<String> steps, String tolerated)
    {
        System.err.println("SparkMaintain: " + sql);
        long start = System.nanoTime();
        List<Row> rows;
        try
        {
            rows = spark.sql(sql).collectAsList();
        }
        catch (RuntimeException e)
        {
            String message = String.valueOf(e.getMessage());
            if (tolerated == null || !message.contains(tolerated))
                throw e;
            long ms = (System.nanoTime() - start) / 1_000_000;
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root)
                root = root.getCause();
            message = root.getClass().getName() + ": " + root.getMessage();
            int nl = message.indexOf('\n');
            StringBuilder sb = new StringBuilder("{\"name\": ");
            jsonString(sb, procedureName(sql));
            sb.append(", \"call\": ");
            jsonString(sb, sql);
            sb.append(", \"ms\": ").append(ms).append(", \"error\": ");
            jsonString(sb, nl < 0 ? message : message.substring(0, nl));
            sb.append('}');
            steps.add(sb.toString());
            System.err.println("SparkMaintain: failed as Iceberg 1.10 does on such tables, going on");
            return;
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        StringBuilder sb = new StringBuilder("{\"name\": ");
        jsonString(sb, procedureName(sql));
        sb.append(", \"call\": ");
        jsonString(sb, sql);
        sb.append(", \"ms\": ").append(ms).append(", \"result\": {");
        if (!rows.isEmpty())
        {
            Row row = rows.get(0);
            StructField[] fields = row.schema().fields();
            for (int i = 0; i < fields.length; i++)
            {
                if (i > 0)
                    sb.append(", ");
                jsonString(sb, fields[i].name());
                sb.append(": ");
                Object v = row.get(i);
                if (v instanceof Number)
                    sb.append(v);
                else
                    jsonString(sb, String.valueOf(v));
            }
        }
        sb.append("}, \"rows\": ").append(rows.size()).append('}');
        steps.add(sb.toString());
    }

    public static void main(String[] args) throws Exception
    {
        long mainStart = System.currentTimeMillis();
        if (args.length != 10 || !(args[9].equals("yes") || args[9].equals("no")))
        {
            System.err.println("usage: SparkMaintain <catalog.db> <warehouse-dir> <catalog-name> <namespace> <table> "
                               + "<delete-ratio> <small-file-bytes> <target-file-bytes> <retain-last> <orphans: yes|no>");
            System.exit(2);
        }
        String catalog = args[2];
        String table = args[3] + "." + args[4];
        String deleteRatio = args[5];
        long smallFileBytes = Long.parseLong(args[6]);
        long targetFileBytes = Long.parseLong(args[7]);
        int retainLast = Integer.parseInt(args[8]);
        boolean orphans = args[9].equals("yes");
        long jvmStartMs = mainStart - ManagementFactory.getRuntimeMXBean().getStartTime();
        String prefix = "spark.sql.catalog." + catalog;

        SparkSession spark = SparkSession.builder()
            .appName("cqlite-spark-maintain")
            .master(System.getProperty("spark.master", "local[2]"))
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
            .config(prefix + ".type", "jdbc")
            .config(prefix + ".uri", "jdbc:sqlite:" + args[0])
            .config(prefix + ".jdbc.schema-version", "V1")
            .config(prefix + ".jdbc.init-catalog-tables", "false")
            .config(prefix + ".warehouse", "file://" + args[1])
            .config(prefix + ".cache-enabled", "false")
            .getOrCreate();
        long sessionMs = System.currentTimeMillis() - mainStart;

        List<String> steps = new ArrayList<>();
        long start = System.nanoTime();
        call(spark, "CALL " + catalog + ".system.rewrite_data_files(table => " + quote(table) + ", options => map("
                    + "'delete-ratio-threshold', " + quote(deleteRatio)
                    + ", 'min-file-size-bytes', '" + smallFileBytes + "'"
                    + ", 'target-file-size-bytes', '" + targetFileBytes + "'"
                    + ", 'max-file-size-bytes', '" + (targetFileBytes * 2) + "'"
                    + ", 'min-input-files', '1', 'remove-dangling-deletes', 'true'))", steps);
        call(spark, "CALL " + catalog + ".system.rewrite_position_delete_files(table => " + quote(table)
                    + ", options => map('min-input-files', '2'))", steps, "Invalid partition field parent");
        call(spark, "CALL " + catalog + ".system.expire_snapshots(table => " + quote(table) + ", older_than => TIMESTAMP '"
                    + now() + "', retain_last => " + retainLast + ")", steps);
        if (orphans)
        {
            Table iceberg = Spark3Util.loadIcebergTable(spark, catalog + "." + table);
            long olderThanMs = System.currentTimeMillis();
            for (String dir : new String[] {"data", "metadata"})
                deleteOrphans(spark, iceberg, iceberg.location() + "/" + dir, olderThanMs, steps);
        }
        long maintainMs = (System.nanoTime() - start) / 1_000_000;

        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "{\"jvm_start_ms\": %d, \"session_ms\": %d, \"maintain_ms\": %d, \"steps\": [",
                                 jvmStartMs, sessionMs, maintainMs));
        out.append(String.join(", ", steps)).append("]}");
        System.out.println(out);
        spark.stop();
    }
}
