package cqlite.icebergreaders;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads Iceberg tables from a JDBC catalog kept in a SQLite file or a
 * PostgreSQL database, or from a REST catalog server (CATALOG
 * rest:http://host:port[/path]; an OAuth2 client credential ID:SECRET in the
 * environment variable CQLITE_REST_CREDENTIAL, or a bearer token in
 * CQLITE_REST_TOKEN), with the Iceberg Java library, and prints them as JSON
 * lines.
 *
 * <pre>
 *   read      CATALOG_FILE WAREHOUSE CATALOG_NAME NAMESPACE TABLE   one JSON object per row
 *   list      CATALOG_FILE WAREHOUSE CATALOG_NAME                   {"namespace": [...]} and {"table": [...]} lines
 *   snapshots CATALOG_FILE WAREHOUSE CATALOG_NAME NAMESPACE TABLE   one JSON object per snapshot
 * </pre>
 *
 * NAMESPACE is dot-separated for nested namespaces. WAREHOUSE is a directory,
 * a file: URI, or s3://bucket/prefix: then the tables are read through
 * Iceberg's S3FileIO, the store's endpoint, region and credentials taken from
 * the environment as cqlite takes them (S3Settings), whichever the catalog.
 * Values are written in the normalized form that
 * tests/integration/iceberg_readers.py documents; maps are written as lists of
 * [key, value] pairs in the order the reader returned them (the Python side
 * sorts them). The catalog is opened with jdbc.init-catalog-tables=false: this
 * tool never writes to it.
 */
public final class IcebergJavaReader {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private IcebergJavaReader() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            usage();
        }
        String cmd = args[0];
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        Catalog catalog = openCatalog(args[1], args[2], args[3]);
        try {
            switch (cmd) {
                case "read":
                    requireArgs(args, 6);
                    readTable(catalog.loadTable(identifier(args[4], args[5])), out);
                    break;
                case "read-many":
                    // NAMESPACE TABLE pairs: one JSON line {"table": "ns.t", "row": {...}} per row.
                    if (args.length < 6 || args.length % 2 != 0) {
                        usage();
                    }
                    for (int i = 4; i < args.length; i += 2) {
                        String prefix = "{\"table\": \"" + args[i] + "." + args[i + 1] + "\", \"row\": ";
                        readTable(catalog.loadTable(identifier(args[i], args[i + 1])), out, prefix);
                    }
                    break;
                case "list":
                    listAll(catalog, Namespace.empty(), out);
                    break;
                case "snapshots":
                    requireArgs(args, 6);
                    printSnapshots(catalog.loadTable(identifier(args[4], args[5])), out);
                    break;
                default:
                    usage();
            }
        } finally {
            if (catalog instanceof java.io.Closeable) {
                ((java.io.Closeable) catalog).close();
            }
        }
        out.flush();
    }

    private static void usage() {
        System.err.println("usage: IcebergJavaReader read|read-many|list|snapshots CATALOG WAREHOUSE CATALOG_NAME [NAMESPACE TABLE]...");
        System.exit(2);
    }

    private static void requireArgs(String[] args, int n) {
        if (args.length != n) {
            usage();
        }
    }

    // CATALOG is a SQLite file, or a PostgreSQL database given as libpq's
    // postgresql://user:password@host:port/db (the PostgreSQL JDBC driver
    // takes the user and password as properties).
    static Catalog openCatalog(String catalog, String warehouse, String name) {
        Map<String, String> props = new HashMap<>();
        if (catalog.startsWith("rest:")) {
            props.put(CatalogProperties.URI, catalog.substring("rest:".length()));
            String credential = System.getenv("CQLITE_REST_CREDENTIAL");
            String token = System.getenv("CQLITE_REST_TOKEN");
            if (credential != null && !credential.isEmpty()) {
                props.put("credential", credential);
                props.put("scope", "PRINCIPAL_ROLE:ALL");
            } else if (token != null && !token.isEmpty()) {
                props.put("token", token);
            }
            props.putAll(S3Settings.catalogProperties(warehouse));
            RESTCatalog restCatalog = new RESTCatalog();
            restCatalog.setConf(new Configuration());
            restCatalog.initialize(name, props);
            return restCatalog;
        }
        if (catalog.startsWith("postgresql://") || catalog.startsWith("postgres://")) {
            java.net.URI uri = java.net.URI.create(catalog);
            String userInfo = uri.getRawUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
                props.put("jdbc.user", java.net.URLDecoder.decode(user, java.nio.charset.StandardCharsets.UTF_8));
                if (colon >= 0) {
                    props.put("jdbc.password", java.net.URLDecoder.decode(userInfo.substring(colon + 1),
                            java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
            props.put(CatalogProperties.URI, "jdbc:postgresql://" + uri.getHost() + port + uri.getRawPath());
        } else {
            props.put(CatalogProperties.URI, "jdbc:sqlite:" + catalog);
        }
        props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.contains(":") ? warehouse : "file://" + warehouse);
        props.put("jdbc.schema-version", "V1");
        props.put("jdbc.init-catalog-tables", "false");
        props.putAll(S3Settings.catalogProperties(warehouse));
        JdbcCatalog jdbcCatalog = new JdbcCatalog();
        jdbcCatalog.setConf(new Configuration());
        jdbcCatalog.initialize(name, props);
        return jdbcCatalog;
    }

    static TableIdentifier identifier(String namespace, String table) {
        return TableIdentifier.of(Namespace.of(namespace.split("\\.")), table);
    }

    static void readTable(Table table, Writer out) throws IOException {
        readTable(table, out, null);
    }

    // Each row as a JSON line; with a prefix, the line is prefix + row + "}".
    static void readTable(Table table, Writer out, String prefix) throws IOException {
        Types.StructType struct = table.schema().asStruct();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            StringBuilder sb = new StringBuilder();
            for (Record record : records) {
                sb.setLength(0);
                if (prefix != null) {
                    sb.append(prefix);
                }
                writeStruct(sb, struct, record);
                if (prefix != null) {
                    sb.append('}');
                }
                sb.append('\n');
                out.write(sb.toString());
            }
        }
    }

    static void listAll(Catalog catalog, Namespace parent, Writer out) throws IOException {
        for (Namespace ns : ((SupportsNamespaces) catalog).listNamespaces(parent)) {
            StringBuilder sb = new StringBuilder("{\"namespace\": ");
            writeStrings(sb, Arrays.asList(ns.levels()));
            out.write(sb.append("}\n").toString());
            for (TableIdentifier id : catalog.listTables(ns)) {
                List<String> parts = new ArrayList<>(Arrays.asList(id.namespace().levels()));
                parts.add(id.name());
                sb = new StringBuilder("{\"table\": ");
                writeStrings(sb, parts);
                out.write(sb.append("}\n").toString());
            }
            listAll(catalog, ns, out);
        }
    }

    static void printSnapshots(Table table, Writer out) throws IOException {
        Snapshot current = table.currentSnapshot();
        for (Snapshot s : table.snapshots()) {
            StringBuilder sb = new StringBuilder("{");
            sb.append("\"snapshot_id\": ").append(s.snapshotId());
            sb.append(", \"parent_id\": ").append(s.parentId() == null ? "null" : s.parentId().toString());
            sb.append(", \"sequence_number\": ").append(s.sequenceNumber());
            sb.append(", \"timestamp_ms\": ").append(s.timestampMillis());
            sb.append(", \"operation\": ");
            writeString(sb, s.operation());
            sb.append(", \"manifest_list\": ");
            writeString(sb, s.manifestListLocation());
            sb.append(", \"current\": ").append(current != null && current.snapshotId() == s.snapshotId());
            sb.append(", \"summary\": {");
            boolean first = true;
            for (Map.Entry<String, String> e : s.summary().entrySet()) {
                if (e.getKey().equals("operation")) {
                    continue;
                }
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                writeString(sb, e.getKey());
                sb.append(": ");
                writeString(sb, e.getValue());
            }
            sb.append("}}\n");
            out.write(sb.toString());
        }
    }

    static void writeStruct(StringBuilder sb, Types.StructType type, Record record) {
        sb.append('{');
        List<Types.NestedField> fields = type.fields();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            Types.NestedField f = fields.get(i);
            writeString(sb, f.name());
            sb.append(": ");
            writeValue(sb, f.type(), record.get(i));
        }
        sb.append('}');
    }

    static void writeValue(StringBuilder sb, Type type, Object v) {
        if (v == null) {
            sb.append("null");
            return;
        }
        switch (type.typeId()) {
            case BOOLEAN:
            case INTEGER:
            case LONG:
                sb.append(v);
                break;
            case FLOAT:
                writeDouble(sb, ((Float) v).doubleValue());
                break;
            case DOUBLE:
                writeDouble(sb, (Double) v);
                break;
            case DECIMAL: {
                int scale = ((Types.DecimalType) type).scale();
                writeString(sb, ((BigDecimal) v).setScale(scale, RoundingMode.UNNECESSARY).toPlainString());
                break;
            }
            case STRING:
                writeString(sb, v.toString());
                break;
            case UUID:
                writeString(sb, ((UUID) v).toString());
                break;
            case BINARY:
            case FIXED:
                writeString(sb, hex(v));
                break;
            case DATE:
                writeString(sb, ((LocalDate) v).toString());
                break;
            case TIME:
                writeString(sb, ((LocalTime) v).format(TIME));
                break;
            case TIMESTAMP:
                sb.append(epochMicros(v));
                break;
            case TIMESTAMP_NANO:
                sb.append(epochNanos(v));
                break;
            case LIST: {
                Type element = type.asListType().elementType();
                sb.append('[');
                boolean first = true;
                for (Object e : (Collection<?>) v) {
                    if (!first) {
                        sb.append(", ");
                    }
                    first = false;
                    writeValue(sb, element, e);
                }
                sb.append(']');
                break;
            }
            case MAP: {
                Types.MapType map = type.asMapType();
                sb.append('[');
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (!first) {
                        sb.append(", ");
                    }
                    first = false;
                    sb.append('[');
                    writeValue(sb, map.keyType(), e.getKey());
                    sb.append(", ");
                    writeValue(sb, map.valueType(), e.getValue());
                    sb.append(']');
                }
                sb.append(']');
                break;
            }
            case STRUCT:
                writeStruct(sb, type.asStructType(), (Record) v);
                break;
            default:
                throw new IllegalArgumentException("unsupported Iceberg type " + type);
        }
    }

    private static long epochMicros(Object v) {
        Instant instant;
        if (v instanceof OffsetDateTime) {
            instant = ((OffsetDateTime) v).toInstant();
        } else {
            instant = ((LocalDateTime) v).toInstant(ZoneOffset.UTC);
        }
        return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    }

    private static long epochNanos(Object v) {
        Instant instant;
        if (v instanceof OffsetDateTime) {
            instant = ((OffsetDateTime) v).toInstant();
        } else {
            instant = ((LocalDateTime) v).toInstant(ZoneOffset.UTC);
        }
        return ChronoUnit.NANOS.between(Instant.EPOCH, instant);
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

    private static String hex(Object v) {
        byte[] bytes;
        if (v instanceof ByteBuffer) {
            ByteBuffer bb = ((ByteBuffer) v).duplicate();
            bytes = new byte[bb.remaining()];
            bb.get(bytes);
        } else {
            bytes = (byte[]) v;
        }
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }

    private static void writeStrings(StringBuilder sb, List<String> values) {
        sb.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            writeString(sb, values.get(i));
        }
        sb.append(']');
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
