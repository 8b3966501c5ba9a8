package cqlite.icebergreaders;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * Writes small format-v2 tables with the Iceberg Java library's own writers,
 * as seeds for the fuzz targets that read files other engines commit
 * (scripts/fuzz_file_seeds.py): table metadata, manifest lists, manifests,
 * Parquet (parquet-java) and Avro data files, position and equality delete
 * files.
 *
 * <pre>
 *   write-sample DIR   writes DIR/parquet_table and DIR/avro_table
 * </pre>
 *
 * Each table, partitioned by a bucket of its key and the day of a
 * timestamp, gets four snapshots: an append of several partitions' files, a
 * row delta with a position delete file and an equality delete file, a
 * schema change followed by another append, and the removal of one data
 * file.
 */
public final class IcebergJavaSampleWriter {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
            Types.NestedField.optional(3, "small", Types.IntegerType.get()),
            Types.NestedField.optional(4, "ratio", Types.FloatType.get()),
            Types.NestedField.optional(5, "score", Types.DoubleType.get()),
            Types.NestedField.optional(6, "price", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(7, "big", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(8, "day", Types.DateType.get()),
            Types.NestedField.optional(9, "at", Types.TimeType.get()),
            Types.NestedField.optional(10, "local_ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(11, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(12, "name", Types.StringType.get()),
            Types.NestedField.optional(13, "uid", Types.UUIDType.get()),
            Types.NestedField.optional(14, "digest", Types.FixedType.ofLength(16)),
            Types.NestedField.optional(15, "raw", Types.BinaryType.get()),
            Types.NestedField.optional(16, "tags", Types.ListType.ofOptional(17, Types.StringType.get())),
            Types.NestedField.optional(18, "attrs",
                    Types.MapType.ofOptional(19, 20, Types.StringType.get(), Types.IntegerType.get())),
            Types.NestedField.optional(21, "point", Types.StructType.of(
                    Types.NestedField.optional(22, "x", Types.DoubleType.get()),
                    Types.NestedField.optional(23, "y", Types.DoubleType.get()))));

    private IcebergJavaSampleWriter() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2 || !args[0].equals("write-sample")) {
            System.err.println("usage: IcebergJavaSampleWriter write-sample DIR");
            System.exit(2);
        }
        for (FileFormat format : new FileFormat[] {FileFormat.PARQUET, FileFormat.AVRO}) {
            String name = format.name().toLowerCase(Locale.ROOT) + "_table";
            writeTable(new File(args[1], name).getAbsoluteFile().toURI().toString(), format);
        }
    }

    private static void writeTable(String location, FileFormat format) throws IOException {
        Map<String, String> properties = new HashMap<>();
        properties.put(TableProperties.FORMAT_VERSION, "2");
        properties.put(TableProperties.DEFAULT_FILE_FORMAT, format.name().toLowerCase(Locale.ROOT));
        // Parquet data files in ZSTD and delete files in Snappy (the library's
        // default for tables made this way is gzip); Avro ones in deflate.
        properties.put(TableProperties.PARQUET_COMPRESSION, "zstd");
        properties.put(TableProperties.DELETE_PARQUET_COMPRESSION, "snappy");
        PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("id", 4).day("ts").build();
        Table table = new HadoopTables(new Configuration()).create(SCHEMA, spec, properties, location);
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).format(format).build();

        List<DataFile> appended = append(table, files, format, 0, 60);

        // Row delta: rows 0 and 2 of the first file by position, id 1 by equality.
        DataFile first = appended.get(0);
        PartitionKey firstKey = partitionOf(table, first);
        Schema idOnly = table.schema().select("id");
        GenericAppenderFactory deletes = new GenericAppenderFactory(
                table.schema(), table.spec(), new int[] {1}, idOnly, null).setAll(table.properties());
        PositionDeleteWriter<Record> positions =
                deletes.newPosDeleteWriter(files.newOutputFile(table.spec(), firstKey), format, firstKey);
        PositionDelete<Record> position = PositionDelete.create();
        try (PositionDeleteWriter<Record> writer = positions) {
            writer.write(position.set(first.location(), 0));
            writer.write(position.set(first.location(), 2));
        }
        EqualityDeleteWriter<Record> equality =
                deletes.newEqDeleteWriter(files.newOutputFile(table.spec(), firstKey), format, firstKey);
        try (EqualityDeleteWriter<Record> writer = equality) {
            writer.write(GenericRecord.create(idOnly).copy("id", 1L));
        }
        RowDelta delta = table.newRowDelta();
        delta.addDeletes(positions.toDeleteFile());
        delta.addDeletes(equality.toDeleteFile());
        delta.commit();

        table.updateSchema().addColumn("note", Types.StringType.get()).commit();
        append(table, files, format, 60, 80);

        table.newDelete().deleteFile(appended.get(appended.size() - 1)).commit();
    }

    private static PartitionKey partitionOf(Table table, DataFile file) {
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        for (int i = 0; i < key.size(); i++) {
            key.set(i, file.partition().get(i, Object.class));
        }
        return key;
    }

    // Appends rows [from, to) in one data file per partition, in one snapshot.
    private static List<DataFile> append(Table table, OutputFileFactory files, FileFormat format, int from, int to)
            throws IOException {
        Schema schema = table.schema();
        InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
        Map<PartitionKey, List<Record>> byPartition = new LinkedHashMap<>();
        for (int i = from; i < to; i++) {
            Record row = row(schema, i);
            PartitionKey key = new PartitionKey(table.spec(), schema);
            key.partition(wrapper.wrap(row));
            byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
        }
        GenericAppenderFactory appenders = new GenericAppenderFactory(schema, table.spec()).setAll(table.properties());
        AppendFiles append = table.newAppend();
        List<DataFile> written = new ArrayList<>();
        for (Map.Entry<PartitionKey, List<Record>> group : byPartition.entrySet()) {
            DataWriter<Record> writer =
                    appenders.newDataWriter(files.newOutputFile(table.spec(), group.getKey()), format, group.getKey());
            try (DataWriter<Record> closing = writer) {
                for (Record row : group.getValue()) {
                    closing.write(row);
                }
            }
            written.add(writer.toDataFile());
            append.appendFile(writer.toDataFile());
        }
        append.commit();
        return written;
    }

    // Row i: every column set, some to null, from i alone.
    private static Record row(Schema schema, int i) {
        Record row = GenericRecord.create(schema);
        row.setField("id", (long) i);
        row.setField("flag", i % 3 == 0 ? null : i % 2 == 0);
        row.setField("small", i * 7 - 100);
        row.setField("ratio", i / 4.0f);
        row.setField("score", i % 5 == 0 ? Double.NaN : i * 1.5);
        row.setField("price", BigDecimal.valueOf(i * 125L, 2));
        row.setField("big", new BigDecimal("12345678901234567890.0123456789").add(BigDecimal.valueOf(i)));
        row.setField("day", LocalDate.of(2026, 1, 1).plusDays(i % 40));
        row.setField("at", LocalTime.of(i % 24, i % 60, 0, i * 1000));
        row.setField("local_ts", LocalDateTime.of(2026, 3, 1, 12, 0).plusMinutes(i * 37L));
        row.setField("ts", OffsetDateTime.of(2026, 3, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusMinutes(i * 20L));
        row.setField("name", i % 4 == 0 ? null : "name-" + i + "-\u00e9\u4e16");
        row.setField("uid", new UUID(i, -i));
        byte[] digest = new byte[16];
        for (int b = 0; b < digest.length; b++) {
            digest[b] = (byte) (i * 31 + b);
        }
        row.setField("digest", digest);
        row.setField("raw", ByteBuffer.wrap(("raw" + i).getBytes(StandardCharsets.UTF_8)));
        List<String> tags = new ArrayList<>();
        for (int t = 0; t < i % 4; t++) {
            tags.add(t == 1 ? null : "tag" + t);
        }
        row.setField("tags", tags);
        Map<String, Integer> attrs = new LinkedHashMap<>();
        for (int a = 0; a < i % 3; a++) {
            attrs.put("k" + a, a == 1 ? null : a * i);
        }
        row.setField("attrs", i % 7 == 0 ? null : attrs);
        if (i % 6 != 0) {
            Record point = GenericRecord.create(schema.findField("point").type().asStructType());
            point.setField("x", i * 0.5);
            point.setField("y", i % 2 == 0 ? null : -i * 0.25);
            row.setField("point", point);
        }
        if (schema.findField("note") != null) {
            row.setField("note", "after the schema change " + i);
        }
        return row;
    }
}
