package cqlite.icebergreaders;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileIO;

/**
 * Reads format version 3 table metadata and the manifest lists and manifests
 * of its snapshots with the Iceberg Java library's own parsers, to check
 * CQLite's v3 metadata codec against it.
 *
 *   v3-read <metadata.json>
 *       parses the file with TableMetadataParser.fromJson; for each snapshot
 *       reads its manifest list (Snapshot.allManifests) and each manifest
 *       (ManifestFiles.read / readDeleteManifest, which fill inherited
 *       values: sequence numbers and first_row_id). Prints
 *       {"format_version", "next_row_id", "current_snapshot_id",
 *        "snapshots": [{"snapshot_id", "sequence_number", "first_row_id",
 *        "added_rows", "manifests": [{"path", "content", "first_row_id",
 *        "added_rows_count", "existing_rows_count", "sequence_number",
 *        "files": [{"content", "path", "format", "record_count",
 *        "file_size_in_bytes", "first_row_id", "data_sequence_number",
 *        "referenced_data_file", "content_offset", "content_size_in_bytes"}]}]}]}
 *       (live files only, as the library's readers give them).
 */
public final class IcebergJavaV3Metadata {
    private IcebergJavaV3Metadata() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !args[0].equals("v3-read")) {
            System.err.println("usage: v3-read <metadata.json>");
            System.exit(2);
        }
        System.out.println(read(args[1]));
    }

    private static String read(String path) throws Exception {
        String text = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(path)),
                StandardCharsets.UTF_8);
        TableMetadata metadata = TableMetadataParser.fromJson(path, text);
        Map<Integer, PartitionSpec> specs = metadata.specsById();
        StringBuilder sb = new StringBuilder();
        try (FileIO io = new HadoopFileIO(new Configuration())) {
            sb.append("{\"format_version\": ").append(metadata.formatVersion());
            sb.append(", \"next_row_id\": ").append(metadata.nextRowId());
            Snapshot current = metadata.currentSnapshot();
            sb.append(", \"current_snapshot_id\": ").append(current == null ? "null" : current.snapshotId());
            sb.append(", \"snapshots\": [");
            boolean firstSnapshot = true;
            for (Snapshot snapshot : metadata.snapshots()) {
                if (!firstSnapshot) {
                    sb.append(", ");
                }
                firstSnapshot = false;
                sb.append("{\"snapshot_id\": ").append(snapshot.snapshotId());
                sb.append(", \"sequence_number\": ").append(snapshot.sequenceNumber());
                sb.append(", \"first_row_id\": ").append(snapshot.firstRowId());
                sb.append(", \"added_rows\": ").append(snapshot.addedRows());
                sb.append(", \"manifests\": [");
                boolean firstManifest = true;
                for (ManifestFile manifest : snapshot.allManifests(io)) {
                    if (!firstManifest) {
                        sb.append(", ");
                    }
                    firstManifest = false;
                    sb.append("{\"path\": ").append(quote(manifest.path()));
                    sb.append(", \"content\": ").append(quote(manifest.content().name()));
                    sb.append(", \"first_row_id\": ").append(manifest.firstRowId());
                    sb.append(", \"added_rows_count\": ").append(manifest.addedRowsCount());
                    sb.append(", \"existing_rows_count\": ").append(manifest.existingRowsCount());
                    sb.append(", \"sequence_number\": ").append(manifest.sequenceNumber());
                    sb.append(", \"files\": [");
                    boolean firstFile = true;
                    if (manifest.content() == ManifestContent.DATA) {
                        try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, specs)) {
                            for (DataFile file : reader) {
                                if (!firstFile) {
                                    sb.append(", ");
                                }
                                firstFile = false;
                                sb.append("{\"content\": ").append(quote(file.content().name()));
                                sb.append(", \"path\": ").append(quote(file.location()));
                                sb.append(", \"format\": ").append(quote(file.format().name()));
                                sb.append(", \"record_count\": ").append(file.recordCount());
                                sb.append(", \"file_size_in_bytes\": ").append(file.fileSizeInBytes());
                                sb.append(", \"first_row_id\": ").append(file.firstRowId());
                                sb.append(", \"data_sequence_number\": ").append(file.dataSequenceNumber());
                                sb.append('}');
                            }
                        }
                    } else {
                        try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, io, specs)) {
                            for (DeleteFile file : reader) {
                                if (!firstFile) {
                                    sb.append(", ");
                                }
                                firstFile = false;
                                sb.append("{\"content\": ").append(quote(file.content().name()));
                                sb.append(", \"path\": ").append(quote(file.location()));
                                sb.append(", \"format\": ").append(quote(file.format().name()));
                                sb.append(", \"record_count\": ").append(file.recordCount());
                                sb.append(", \"file_size_in_bytes\": ").append(file.fileSizeInBytes());
                                sb.append(", \"first_row_id\": ").append(file.firstRowId());
                                sb.append(", \"data_sequence_number\": ").append(file.dataSequenceNumber());
                                sb.append(", \"referenced_data_file\": ").append(quote(file.referencedDataFile()));
                                sb.append(", \"content_offset\": ").append(file.contentOffset());
                                sb.append(", \"content_size_in_bytes\": ").append(file.contentSizeInBytes());
                                sb.append('}');
                            }
                        }
                    }
                    sb.append("]}");
                }
                sb.append("]}");
            }
            sb.append("]}");
        }
        return sb.toString();
    }

    private static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
