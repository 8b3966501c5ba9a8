package cqlite.icebergreaders;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.iceberg.util.Pair;

/**
 * Reads and writes Puffin files of deletion vectors (deletion-vector-v1 blobs)
 * with the Iceberg Java library's own code, to check CQLite's Puffin and
 * deletion vector codecs against it.
 *
 *   dv-read  <file.puffin>
 *       lists the blobs with Puffin's reader and decodes each deletion vector
 *       with PositionDeleteIndex.deserialize, given the DeleteFile a v3
 *       manifest would hold for it (content offset and size from the footer,
 *       record count from the blob's "cardinality" property). Prints
 *       {"file_size", "properties", "blobs": [{"type", "fields", "snapshot_id",
 *       "sequence_number", "offset", "length", "compression_codec",
 *       "properties", "cardinality", "positions"}]}.
 *   dv-write <out.puffin> <vectors.tsv>
 *       vectors.tsv: one line per vector, the data file, a tab, and its
 *       positions comma-separated; writes one blob per line as Iceberg's
 *       DV writer does (PositionDeleteIndex.serialize, fields [_pos],
 *       snapshot id and sequence number -1, referenced-data-file and
 *       cardinality properties). Prints the blob metadata as dv-read does,
 *       without positions.
 */
public final class IcebergJavaDeletionVectors {
    private IcebergJavaDeletionVectors() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("dv-read")) {
            System.out.println(read(args[1]));
        } else if (args.length == 3 && args[0].equals("dv-write")) {
            System.out.println(write(args));
        } else {
            System.err.println("usage: dv-read <file.puffin> | dv-write <out.puffin> <vectors.tsv>");
            System.exit(2);
        }
    }

    private static String read(String path) throws Exception {
        File file = new File(path);
        StringBuilder sb = new StringBuilder();
        try (PuffinReader reader = Puffin.read(Files.localInput(file)).build()) {
            org.apache.iceberg.puffin.FileMetadata metadata = reader.fileMetadata();
            sb.append("{\"file_size\": ").append(file.length()).append(", \"properties\": ");
            writeMap(sb, metadata.properties());
            sb.append(", \"blobs\": [");
            boolean first = true;
            for (Pair<BlobMetadata, ByteBuffer> pair : reader.readAll(metadata.blobs())) {
                BlobMetadata blob = pair.first();
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                writeBlobMetadata(sb, blob);
                if (blob.type().equals("deletion-vector-v1")) {
                    long cardinality = Long.parseLong(blob.properties().get("cardinality"));
                    DeleteFile deleteFile = FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
                            .ofPositionDeletes()
                            .withFormat(FileFormat.PUFFIN)
                            .withPath(path)
                            .withFileSizeInBytes(file.length())
                            .withReferencedDataFile(blob.properties().get("referenced-data-file"))
                            .withContentOffset(blob.offset())
                            .withContentSizeInBytes(blob.length())
                            .withRecordCount(cardinality)
                            .build();
                    PositionDeleteIndex index =
                            PositionDeleteIndex.deserialize(ByteBuffers.toByteArray(pair.second()), deleteFile);
                    sb.append(", \"cardinality\": ").append(index.cardinality()).append(", \"positions\": [");
                    List<Long> positions = new ArrayList<>();
                    index.forEach(positions::add);
                    for (int i = 0; i < positions.size(); i++) {
                        if (i > 0) {
                            sb.append(", ");
                        }
                        sb.append(positions.get(i));
                    }
                    sb.append(']');
                }
                sb.append('}');
            }
            sb.append("]}");
        }
        return sb.toString();
    }

    private static String write(String[] args) throws Exception {
        File file = new File(args[1]);
        List<BlobMetadata> written;
        try (PuffinWriter writer =
                Puffin.write(Files.localOutput(file)).createdBy("Iceberg Java test writer").build()) {
            for (String line : java.nio.file.Files.readAllLines(new File(args[2]).toPath())) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] parts = line.split("\t", -1);
                List<Long> positions = new ArrayList<>();
                for (String p : parts[1].split(",")) {
                    if (!p.isEmpty()) {
                        positions.add(Long.parseLong(p));
                    }
                }
                PositionDeleteIndex index = Deletes.toPositionIndex(CloseableIterable.withNoopClose(positions));
                Map<String, String> properties = new LinkedHashMap<>();
                properties.put("referenced-data-file", parts[0]);
                properties.put("cardinality", String.valueOf(index.cardinality()));
                writer.write(new Blob("deletion-vector-v1", List.of(MetadataColumns.ROW_POSITION.fieldId()), -1, -1,
                        index.serialize(), null, properties));
            }
            writer.finish();
            written = writer.writtenBlobsMetadata();
        }
        StringBuilder sb = new StringBuilder("{\"file_size\": ").append(file.length()).append(", \"blobs\": [");
        for (int i = 0; i < written.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            writeBlobMetadata(sb, written.get(i));
            sb.append('}');
        }
        return sb.append("]}").toString();
    }

    // Writes the blob's metadata as an unclosed JSON object.
    private static void writeBlobMetadata(StringBuilder sb, BlobMetadata blob) {
        sb.append("{\"type\": ");
        IcebergJavaReader.writeString(sb, blob.type());
        sb.append(", \"fields\": ").append(blob.inputFields().toString());
        sb.append(", \"snapshot_id\": ").append(blob.snapshotId());
        sb.append(", \"sequence_number\": ").append(blob.sequenceNumber());
        sb.append(", \"offset\": ").append(blob.offset());
        sb.append(", \"length\": ").append(blob.length());
        sb.append(", \"compression_codec\": ");
        if (blob.compressionCodec() == null) {
            sb.append("null");
        } else {
            IcebergJavaReader.writeString(sb, blob.compressionCodec());
        }
        sb.append(", \"properties\": ");
        writeMap(sb, blob.properties());
    }

    private static void writeMap(StringBuilder sb, Map<String, String> map) {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(map).entrySet()) {
            if (!first) {
                sb.append(", ");
            }
            first = false;
            IcebergJavaReader.writeString(sb, e.getKey());
            sb.append(": ");
            IcebergJavaReader.writeString(sb, e.getValue());
        }
        sb.append('}');
    }
}
