package cqlite.bench.spark;

import java.lang.management.ManagementFactory;
import java.util.Locale;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * What a user without CQLite runs to publish a Cassandra table as an Iceberg
 * table: Spark (local mode) reads the whole table from a node through the
 * Spark Cassandra Connector and writes it to an Iceberg table of a JDBC
 * catalog kept in SQLite.
 *
 *   SparkLoad create|overwrite <host> <port> <keyspace> <table> <catalog.db> <warehouse-dir> <catalog-name>
 *
 * create: a fresh Iceberg table <catalog-name>.<keyspace>.<table> (format v2)
 * holding every row, one commit. overwrite: the table's rows replaced by every
 * row the connector reads now (the connector cannot read only what changed).
 * Prints one line of timings on stdout:
 *   jvm_start_ms=<JVM start to main> session_ms=<SparkSession up> load_ms=<read, write and commit> rows=<rows in the table after the commit>
 * (rows is counted after the clock stops, from the Iceberg table).
 */
public final class SparkLoad
{
    private SparkLoad()
    {
    }

    public static void main(String[] args) throws Exception
    {
        long mainStart = System.currentTimeMillis();
        if (args.length != 8 || !(args[0].equals("create") || args[0].equals("overwrite")))
        {
            System.err.println("usage: SparkLoad create|overwrite <host> <port> <keyspace> <table> <catalog.db> <warehouse-dir> <catalog-name>");
            System.exit(2);
        }
        String mode = args[0];
        String keyspace = args[3];
        String table = args[4];
        String catalog = args[7];
        long jvmStartMs = mainStart - ManagementFactory.getRuntimeMXBean().getStartTime();

        SparkSession spark = SparkSession.builder()
            .appName("cqlite-spark-load")
            .master(System.getProperty("spark.master", "local[2]"))
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.cassandra.connection.host", args[1])
            .config("spark.cassandra.connection.port", args[2])
            .config("spark.cassandra.read.timeoutMS", "600000")
            .config("spark.sql.catalog." + catalog, "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog." + catalog + ".type", "jdbc")
            .config("spark.sql.catalog." + catalog + ".uri", "jdbc:sqlite:" + args[5])
            .config("spark.sql.catalog." + catalog + ".jdbc.schema-version", "V1")
            .config("spark.sql.catalog." + catalog + ".warehouse", "file://" + args[6])
            .getOrCreate();
        long sessionMs = System.currentTimeMillis() - mainStart;

        long loadStart = System.currentTimeMillis();
        Dataset<Row> rows = spark.read()
            .format("org.apache.spark.sql.cassandra")
            .option("keyspace", keyspace)
            .option("table", table)
            .load();
        String target = catalog + "." + keyspace + "." + table;
        if (mode.equals("create"))
        {
            spark.sql("CREATE NAMESPACE IF NOT EXISTS " + catalog + "." + keyspace);
            rows.writeTo(target).tableProperty("format-version", "2").create();
        }
        else
        {
            rows.writeTo(target).overwrite(functions.lit(true));
        }
        long loadMs = System.currentTimeMillis() - loadStart;

        long count = spark.table(target).count();
        System.out.println(String.format(Locale.ROOT, "jvm_start_ms=%d session_ms=%d load_ms=%d rows=%d",
                                         jvmStartMs, sessionMs, loadMs, count));
        spark.stop();
    }
}
