package cqlite.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.utils.StorageCompatibilityMode;

/**
 * Writes the scan benchmark's dataset with Cassandra's own offline writer
 * (CQLSSTableWriter, sorted mode): an IoT time-series table, one partition per
 * sensor, readings newest first. Every value comes from a seeded
 * SplittableRandom, so the same arguments give the same rows (only the
 * expiry times of TTL'd rows depend on the clock).
 *
 * Partitions are written in token order, so the writer can stream them and
 * start a new SSTable whenever the current one reaches the size limit:
 * the result looks like a leveled-compaction level, non-overlapping files.
 *
 * With G generations (default 1) the rows are written in G passes, each its
 * own SSTable generation over the whole key range, as flushes leave them:
 * pass g holds the readings whose index is g modulo G, and every pass also
 * rewrites each sensor's newest reading with a later timestamp, so folding
 * the generations both merges partitions and resolves overwrites.
 *
 * With R readings per partition (default 0: each sensor has 300 to 2999)
 * every partition has R rows: R in the millions makes the wide partitions
 * that bound a reader's memory per partition rather than per table.
 *
 *   GenerateDataset <table-dir> <partitions> <seed> <max-sstable-mib> <nb|oa> [generations [readings]]
 */
public final class GenerateDataset {
    static final String KEYSPACE = "bench";
    static final String TABLE = "sensor_readings";

    static final String SCHEMA =
        "CREATE TABLE " + KEYSPACE + "." + TABLE + " (\n" +
        "    sensor_id text,\n" +
        "    ts timestamp,\n" +
        "    temperature double,\n" +
        "    humidity double,\n" +
        "    pressure double,\n" +
        "    battery_mv int,\n" +
        "    rssi int,\n" +
        "    status text,\n" +
        "    firmware text,\n" +
        "    note text,\n" +
        "    tags set<text>,\n" +
        "    counters map<text, int>,\n" +
        "    PRIMARY KEY ((sensor_id), ts)\n" +
        ") WITH CLUSTERING ORDER BY (ts DESC)\n" +
        "    AND compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': '16'}";

    static final String INSERT =
        "INSERT INTO " + KEYSPACE + "." + TABLE +
        " (sensor_id, ts, temperature, humidity, pressure, battery_mv, rssi, status, firmware, note, tags, counters)" +
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?";

    static final String[] REGIONS = {"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1"};
    static final String[] FIRMWARE = {"fw-2.3.9", "fw-2.4.0", "fw-2.4.1", "fw-3.0.0-rc2"};
    static final String[] TAGS = {"indoor", "outdoor", "calibrated", "battery", "mains", "rooftop",
                                  "cold-chain", "hvac", "line-3", "line-7", "warehouse", "lab"};
    static final String[] NOTES = {"door opened", "recalibrated by technician", "battery replaced",
                                   "threshold exceeded, alert sent", "connectivity restored after outage"};
    // 2026-01-01T00:00:00Z: the newest reading of every sensor is near it.
    static final long END_MILLIS = 1767225600000L;
    static final int TTL_SECONDS = 90 * 24 * 3600;

    /** Moves the one SSTable a pass wrote into the table directory as generation {@code generation}. */
    static void moveGeneration(Path passDir, Path dir, int generation) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.list(passDir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                // <version>-<generation>-<format>-<component>
                String[] parts = name.split("-", 3);
                if (parts.length != 3)
                    throw new IllegalStateException("unexpected file " + file);
                Files.move(file, dir.resolve(parts[0] + "-" + generation + "-" + parts[2]));
            }
        }
        Files.delete(passDir);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5 || args.length > 7) {
            System.err.println("usage: GenerateDataset <table-dir> <partitions> <seed> <max-sstable-mib> <nb|oa> [generations [readings]]");
            System.exit(2);
        }
        Path dir = Paths.get(args[0]);
        int partitions = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        int maxSSTableMiB = Integer.parseInt(args[3]);
        String format = args[4];
        int generations = args.length >= 6 ? Integer.parseInt(args[5]) : 1;
        int readings = args.length == 7 ? Integer.parseInt(args[6]) : 0;
        StorageCompatibilityMode mode;
        if (format.equals("nb")) mode = StorageCompatibilityMode.CASSANDRA_4;
        else if (format.equals("oa")) mode = StorageCompatibilityMode.NONE;
        else throw new IllegalArgumentException("format must be nb or oa: " + format);

        DatabaseDescriptor.clientInitialization(true, () -> {
            Config config = new Config();
            config.storage_compatibility_mode = mode;
            return config;
        });
        Files.createDirectories(dir);
        // Beside the table directory, as tools/oracle's generate leaves it.
        Files.write(dir.toAbsolutePath().getParent().resolve("schema.cql"),
                    (SCHEMA + ";\n").getBytes(StandardCharsets.UTF_8));

        // Sensor ids, in the token order the sorted writer needs.
        SplittableRandom keyRandom = new SplittableRandom(seed);
        List<DecoratedKey> keys = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            String id = REGIONS[keyRandom.nextInt(REGIONS.length)] + ":plant-" + String.format("%03d", keyRandom.nextInt(200)) +
                        ":sensor-" + String.format("%07d", i);
            keys.add(Murmur3Partitioner.instance.decorateKey(ByteBuffer.wrap(id.getBytes(StandardCharsets.UTF_8))));
        }
        Collections.sort(keys);

        long start = System.nanoTime();
        long rows = 0;
        long ttlRows = 0;
        int done = 0;
        for (int pass = 0; pass < generations; pass++) {
        Path passDir = generations == 1 ? dir : dir.resolve("pass-" + pass);
        Files.createDirectories(passDir);
        try (CQLSSTableWriter writer = CQLSSTableWriter.builder()
                 .inDirectory(passDir.toString())
                 .forTable(SCHEMA)
                 .using(INSERT)
                 .sorted()
                 .withMaxSSTableSizeInMiB(maxSSTableMiB)
                 .build()) {
            for (DecoratedKey key : keys) {
                String id = StandardCharsets.UTF_8.decode(key.getKey().duplicate()).toString();
                // Per-partition stream, so a sensor's rows do not depend on the order of the others.
                SplittableRandom r = new SplittableRandom(seed * 31 + id.hashCode());
                int count = 300 + r.nextInt(2700);  // 300..2999 readings
                if (readings > 0) count = readings;
                int intervalMs = 10_000 * (1 + r.nextInt(6));
                double baseTemp = 5 + r.nextDouble() * 25;
                double baseHumidity = 30 + r.nextDouble() * 40;
                String firmware = FIRMWARE[r.nextInt(FIRMWARE.length)];
                boolean ttlSensor = r.nextInt(10) == 0;  // 10% of sensors keep readings for 90 days only
                int battery = 3000 + r.nextInt(600);
                long rx = r.nextInt(1000), tx = r.nextInt(1000), err = 0;
                long ts = END_MILLIS - r.nextInt(intervalMs);
                for (int i = 0; i < count; i++) {
                    // Newest first: the clustering order is DESC.
                    double temperature = Math.round((baseTemp + 4 * Math.sin(ts / 3.6e6) + r.nextGaussian() * 0.3) * 100) / 100.0;
                    double humidity = Math.round((baseHumidity + r.nextGaussian() * 2) * 10) / 10.0;
                    double pressure = 1013.25 + r.nextGaussian() * 5;
                    if (r.nextInt(50) == 0) battery = Math.max(2400, battery - 1);
                    int rssi = -40 - r.nextInt(60);
                    int s = r.nextInt(100);
                    String status = s < 93 ? "OK" : s < 99 ? "WARN" : "ALARM";
                    Object note = r.nextInt(20) == 0 ? NOTES[r.nextInt(NOTES.length)] : CQLSSTableWriter.UNSET_VALUE;
                    Set<String> tags = new LinkedHashSet<>();
                    int ntags = 1 + r.nextInt(3);
                    for (int t = 0; t < ntags; t++) tags.add(TAGS[r.nextInt(TAGS.length)]);
                    rx += r.nextInt(20);
                    tx += r.nextInt(20);
                    if (r.nextInt(30) == 0) err++;
                    Map<String, Integer> counters = new LinkedHashMap<>();
                    counters.put("rx", (int) rx);
                    counters.put("tx", (int) tx);
                    counters.put("err", (int) err);
                    long writeTimestampMicros = ts * 1000 + r.nextInt(1000);
                    int ttl = ttlSensor ? TTL_SECONDS : 0;  // TTL 0: no expiry
                    if (i % generations == pass || i == 0) {
                        writer.addRow(id, new Date(ts), temperature, humidity, pressure, battery, rssi, status,
                                      firmware, note, tags, counters, writeTimestampMicros + pass, ttl);
                        rows++;
                        if (ttl != 0) ttlRows++;
                    }
                    ts -= intervalMs - 500 + r.nextInt(1000);
                }
                if (++done % 200 == 0) {
                    System.err.printf("pass %d: %d/%d partitions, %d rows, %.0f s%n", pass, done, partitions, rows,
                                      (System.nanoTime() - start) / 1e9);
                }
            }
        }
        if (generations > 1) moveGeneration(passDir, dir, pass + 1);
        done = 0;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        String summary = String.format("partitions=%d rows=%d ttl_rows=%d seed=%d format=%s max_sstable_mib=%d generations=%d readings=%d seconds=%.1f%n",
                                       partitions, rows, ttlRows, seed, format, maxSSTableMiB, generations, readings, seconds);
        System.out.print(summary);
        System.exit(0);
    }
}
