package cqlite.icebergreaders.spark;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

import scala.Tuple2;

/**
 * Reads Iceberg tables from a JDBC catalog kept in a SQLite file with Spark in
 * local mode and the Iceberg Spark runtime (SparkCatalog, type jdbc), and
 * prints them as JSON lines.
 *
 * <pre>
 *   read-many CATALOG_FILE WAREHOUSE CATALOG_NAME (NAMESPACE TABLE)...
 * </pre>
 *
 * Prints {"table": "ns.t", "row": {...}} for every row of every table, or one
 * {"table": "ns.t", "error": "..."} line for a table Spark could not read (the
 * other tables are still read; the exit status is then 3). NAMESPACE is
 * dot-separated for nested namespaces. WAREHOUSE is a directory or a file:
 * URI. Values are written in the normalized form that
 * tests/integration/iceberg_readers.py documents, as the Iceberg Java reader
 * does, dispatching on the Spark type the Iceberg runtime maps each column to
 * (uuid is a Spark string, fixed a Spark binary, timestamptz a Spark
 * timestamp, timestamp a Spark timestamp_ntz); maps are written as lists of
 * [key, value] pairs in the order Spark returned them (the Python side sorts
 * them). The catalog is opened with jdbc.init-catalog-tables=false and the
 * tool only runs SELECTs: it never writes to the catalog.
 */
public final class IcebergSparkReader {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private IcebergSparkReader() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 6 || args.length % 2 != 0 || !args[0].equals("read-many")) {
            System.err.println("usage: IcebergSparkReader read-many CATALOG_FILE WAREHOUSE CATALOG_NAME (NAMESPACE TABLE)...");
            System.exit(2);
        }
        String catalogFile = args[1];
        String warehouse = args[2].contains(":") ? args[2] : "file://" + args[2];
        String name = args[3];
        String prefix = "spark.sql.catalog." + name;
        SparkSession spark = SparkSession.builder()
                .appName("cqlite-iceberg-spark-reader")
                .master("local[1]")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.sql.session.timeZone", "UTC")
                // java.time values: LocalDate, Instant, LocalDateTime (no java.sql calendar rebasing).
                .config("spark.sql.datetime.java8API.enabled", "true")
                .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
                .config(prefix + ".type", "jdbc")
                .config(prefix + ".uri", "jdbc:sqlite:" + catalogFile)
                .config(prefix + ".jdbc.schema-version", "V1")
                .config(prefix + ".jdbc.init-catalog-tables", "false")
                .config(prefix + ".warehouse", warehouse)
                .config(prefix + ".cache-enabled", "false")
                .getOrCreate();
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        int failed = 0;
        try {
            for (int i = 4; i < args.length; i += 2) {
                String label = args[i] + "." + args[i + 1];
                StringBuilder head = new StringBuilder("{\"table\": ");
                writeString(head, label);
                try {
                    readTable(spark, name, args[i], args[i + 1], out, head + ", \"row\": ");
                } catch (Exception e) {
                    failed++;
                    StringBuilder sb = new StringBuilder(head).append(", \"error\": ");
                    writeString(sb, e.getClass().getName() + ": " + firstLine(e.getMessage()));
                    out.write(sb.append("}\n").toString());
                }
                out.flush();
            }
        } finally {
            out.flush();
            spark.stop();
        }
        System.exit(failed == 0 ? 0 : 3);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    private static String quoted(String part) {
        return "`" + part.replace("`", "``") + "`";
    }

    static void readTable(SparkSession spark, String catalog, String namespace, String table, Writer out,
                          String prefix) throws Exception {
        StringBuilder ident = new StringBuilder(quoted(catalog));
        for (String level : namespace.split("\\.")) {
            ident.append('.').append(quoted(level));
        }
        ident.append('.').append(quoted(table));
        Dataset<Row> df = spark.table(ident.toString());
        StructType schema = df.schema();
        StringBuilder sb = new StringBuilder();
        // Rows are written as they arrive; a table that fails part-way has
        // written some rows, but the error line that follows voids the table.
        Iterator<Row> rows = df.toLocalIterator();
        while (rows.hasNext()) {
            sb.setLength(0);
            sb.append(prefix);
            writeStruct(sb, schema, rows.next());
            sb.append("}\n");
            out.write(sb.toString());
        }
    }

    static void writeStruct(StringBuilder sb, StructType type, Row row) {
        sb.append('{');
        StructField[] fields = type.fields();
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            writeString(sb, fields[i].name());
            sb.append(": ");
            writeValue(sb, fields[i].dataType(), row.get(i));
        }
        sb.append('}');
    }

    static void writeValue(StringBuilder sb, DataType type, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (type instanceof BooleanType || type instanceof IntegerType || type instanceof LongType) {
            sb.append(v);
        } else if (type instanceof FloatType) {
            writeDouble(sb, ((Float) v).doubleValue());
        } else if (type instanceof DoubleType) {
            writeDouble(sb, (Double) v);
        } else if (type instanceof DecimalType) {
            int scale = ((DecimalType) type).scale();
            writeString(sb, ((BigDecimal) v).setScale(scale, RoundingMode.UNNECESSARY).toPlainString());
        } else if (type instanceof StringType) {
            // Iceberg string and uuid (canonical lowercase form).
            writeString(sb, v.toString());
        } else if (type instanceof BinaryType) {
            // Iceberg binary and fixed[N].
            writeString(sb, hex((byte[]) v));
        } else if (type instanceof DateType) {
            writeString(sb, ((LocalDate) v).toString());
        } else if (type instanceof TimestampType) {
            // Iceberg timestamptz.
            sb.append(ChronoUnit.MICROS.between(Instant.EPOCH, (Instant) v));
        } else if (type instanceof TimestampNTZType) {
            // Iceberg timestamp (without zone): microseconds as if UTC.
            sb.append(ChronoUnit.MICROS.between(Instant.EPOCH, ((LocalDateTime) v).toInstant(ZoneOffset.UTC)));
        } else if (type instanceof ArrayType) {
            DataType element = ((ArrayType) type).elementType();
            sb.append('[');
            scala.collection.Iterator<?> it = ((scala.collection.Iterable<?>) v).iterator();
            boolean first = true;
            while (it.hasNext()) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                writeValue(sb, element, it.next());
            }
            sb.append(']');
        } else if (type instanceof MapType) {
            MapType map = (MapType) type;
            sb.append('[');
            scala.collection.Iterator<?> it = ((scala.collection.Map<?, ?>) v).iterator();
            boolean first = true;
            while (it.hasNext()) {
                Tuple2<?, ?> e = (Tuple2<?, ?>) it.next();
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                sb.append('[');
                writeValue(sb, map.keyType(), e._1());
                sb.append(", ");
                writeValue(sb, map.valueType(), e._2());
                sb.append(']');
            }
            sb.append(']');
        } else if (type instanceof StructType) {
            writeStruct(sb, (StructType) type, (Row) v);
        } else {
            throw new IllegalArgumentException("unsupported Spark type " + type.simpleString());
        }
    }

    private static void writeDouble(StringBuilder sb, double d) {
        if (Double.isNaN(d)) {
            sb.append("\"NaN\"");
        } else if (Double.isInfinite(d)) {
            sb.append(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        } else {
            // Double.toString round-trips: Python parses it back to the same double.
            sb.append(Double.toString(d));
        }
    }

    private static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }

    static void writeString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }
}
