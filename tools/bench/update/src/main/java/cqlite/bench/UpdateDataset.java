package cqlite.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
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
 * Writes a later generation of the benchmark dataset (tools/bench/gen_dataset.sh,
 * 1 generation): the changes an application made after the dataset was flushed.
 *
 * It replays GenerateDataset's seeded generator draw for draw, so it knows
 * every row's key and write timestamp without reading the SSTables, and picks
 * one row in {@code every} of each sensor (at a per-sensor offset). Of the
 * picked rows, one in ten is deleted (a row tombstone), the others are
 * written again with changed values (temperature, status, counters, a note)
 * and the same TTL as before. Updates and deletes go to two SSTables, as two
 * flushes would leave them, named generations {@code first-generation} and
 * {@code first-generation + 1}. Their write timestamps, by {@code timestamps}:
 * {@code after-dataset}, a minute after the dataset's newest reading (as an
 * application that changes rows after the dataset was written stamps its
 * writes), or {@code after-row}, one second after the row each replaces (older
 * than the newer readings of the same sensor).
 *
 * With {@code rounds} R above 1 it writes R such changes, as R successive
 * batches of an application's writes would leave them: round k (0-based)
 * picks the rows at offset (per-sensor offset + k) mod {@code every}, so the
 * rounds change disjoint rows (R must not exceed {@code every}), its writes
 * are stamped k minutes after round 0's (after-dataset) or k microseconds
 * after them (after-row), and its updates and deletes are generations
 * {@code first-generation + 2k} and {@code first-generation + 2k + 1}. Round
 * 0 is exactly the single change of R = 1. All rounds are written in one pass
 * over the replayed dataset.
 *
 * With a {@code kind} other than {@code changes} (rounds 1), it writes
 * another change of about the same size, for bench/run_change_bench.sh:
 * <ul>
 * <li>{@code deletions}: deletions of old rows, stamped after the dataset: one
 *     sensor in 300 deleted whole (a partition deletion); of the others, the
 *     picked rows in turn deleted alone (a row deletion) or as the first of a
 *     range of three rows (a range deletion, {@code ts <= first AND ts >=
 *     third}); generations first, first + 1 and first + 2 (rows, ranges,
 *     partitions).</li>
 * <li>{@code column}: the note of each picked row set with a timestamp one
 *     microsecond older than the row's: it wins only where the row has no
 *     note (19 rows in 20), and loses to the note a row has; generation
 *     first. {@code updated} counts the rows it changes.</li>
 * <li>{@code partitions}: one sensor in 100 written again whole, every row with
 *     changed values, stamped after the dataset; generation first.</li>
 * <li>{@code ttl}: the picked rows written again whole with changed values,
 *     stamped after the dataset, with a TTL of a day from the time they are
 *     written (CQLSSTableWriter's clock: {@code written_from} and {@code
 *     written_to} in the totals line bound it); generation first.</li>
 * </ul>
 *
 *   UpdateDataset <table-dir> <partitions> <seed> <nb|oa> <every> <first-generation> [after-dataset|after-row [rounds [kind]]]
 *
 * Prints one line of totals; with R above 1, then one line per round
 * ({@code round=k+1 updated=.. deleted=.. update_generation=.. delete_generation=..}).
 *
 * It must stay in step with GenerateDataset's loop (same draws, same order).
 */
public final class UpdateDataset {
    static final String KEYSPACE = "bench";
    static final String TABLE = "sensor_readings";

    // The same CREATE TABLE as GenerateDataset's.
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
    static final String DELETE =
        "DELETE FROM " + KEYSPACE + "." + TABLE + " USING TIMESTAMP ? WHERE sensor_id = ? AND ts = ?";
    static final String DELETE_RANGE =
        "DELETE FROM " + KEYSPACE + "." + TABLE + " USING TIMESTAMP ? WHERE sensor_id = ? AND ts <= ? AND ts >= ?";
    static final String DELETE_PARTITION =
        "DELETE FROM " + KEYSPACE + "." + TABLE + " USING TIMESTAMP ? WHERE sensor_id = ?";
    static final String SET_NOTE =
        "UPDATE " + KEYSPACE + "." + TABLE + " USING TIMESTAMP ? SET note = ? WHERE sensor_id = ? AND ts = ?";

    static final String[] REGIONS = {"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1"};
    static final String[] FIRMWARE = {"fw-2.3.9", "fw-2.4.0", "fw-2.4.1", "fw-3.0.0-rc2"};
    static final String[] TAGS = {"indoor", "outdoor", "calibrated", "battery", "mains", "rooftop",
                                  "cold-chain", "hvac", "line-3", "line-7", "warehouse", "lab"};
    static final String[] NOTES = {"door opened", "recalibrated by technician", "battery replaced",
                                   "threshold exceeded, alert sent", "connectivity restored after outage"};
    static final long END_MILLIS = 1767225600000L;
    static final int TTL_SECONDS = 90 * 24 * 3600;
    static final int TTL_DAY_SECONDS = 24 * 3600;
    static final long LATER_MICROS = 1_000_000L;
    // A minute after the newest reading any sensor has (END_MILLIS less jitter).
    static final long AFTER_DATASET_MICROS = (END_MILLIS + 60_000L) * 1000L;

    static void moveGeneration(Path passDir, Path dir, int generation) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.list(passDir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                String[] parts = name.split("-", 3);
                if (parts.length != 3)
                    throw new IllegalStateException("unexpected file " + file);
                Files.move(file, dir.resolve(parts[0] + "-" + generation + "-" + parts[2]));
            }
        }
        Files.delete(passDir);
    }

    static CQLSSTableWriter open(Path dir, String statement) {
        return CQLSSTableWriter.builder().inDirectory(dir.toString()).forTable(SCHEMA).using(statement).sorted().build();
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 6 || args.length > 9) {
            System.err.println("usage: UpdateDataset <table-dir> <partitions> <seed> <nb|oa> <every> <first-generation> "
                               + "[after-dataset|after-row [rounds [changes|deletions|column|partitions]]]");
            System.exit(2);
        }
        Path dir = Paths.get(args[0]);
        int partitions = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        String format = args[3];
        int every = Integer.parseInt(args[4]);
        int firstGeneration = Integer.parseInt(args[5]);
        String timestamps = args.length > 6 ? args[6] : "after-dataset";
        if (!timestamps.equals("after-dataset") && !timestamps.equals("after-row")) {
            System.err.println("UpdateDataset: timestamps must be after-dataset or after-row, not " + timestamps);
            System.exit(2);
        }
        boolean afterDataset = timestamps.equals("after-dataset");
        int rounds = args.length > 7 ? Integer.parseInt(args[7]) : 1;
        if (rounds < 1 || rounds > every) {
            System.err.println("UpdateDataset: rounds must be between 1 and every (" + every + "), not " + rounds);
            System.exit(2);
        }
        String kind = args.length > 8 ? args[8] : "changes";
        if (!List.of("changes", "deletions", "column", "partitions", "ttl").contains(kind) ||
            (!kind.equals("changes") && rounds != 1)) {
            System.err.println("UpdateDataset: kind must be changes, deletions, column, partitions or ttl (the "
                               + "last four with one round), not " + kind);
            System.exit(2);
        }
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

        SplittableRandom keyRandom = new SplittableRandom(seed);
        List<DecoratedKey> keys = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            String id = REGIONS[keyRandom.nextInt(REGIONS.length)] + ":plant-" + String.format("%03d", keyRandom.nextInt(200)) +
                        ":sensor-" + String.format("%07d", i);
            keys.add(Murmur3Partitioner.instance.decorateKey(ByteBuffer.wrap(id.getBytes(StandardCharsets.UTF_8))));
        }
        Collections.sort(keys);

        long start = System.nanoTime();
        if (!kind.equals("changes")) {
            long writtenFrom = System.currentTimeMillis() / 1000;
            OtherChange change = new OtherChange(dir, kind);
            try {
                for (DecoratedKey key : keys) change.partition(key, seed, every);
            } finally {
                change.close();
            }
            change.finish(firstGeneration);
            long writtenTo = System.currentTimeMillis() / 1000 + 1;
            System.out.printf("partitions=%d rows=%d kind=%s updated=%d deleted=%d row_deletions=%d range_deletions=%d "
                              + "partition_deletions=%d written_from=%d written_to=%d every=%d seed=%d format=%s "
                              + "seconds=%.1f%n",
                              partitions, change.rows, kind, change.updated, change.deleted, change.rowDeletions,
                              change.rangeDeletions, change.partitionDeletions, writtenFrom, writtenTo, every, seed,
                              format, (System.nanoTime() - start) / 1e9);
            System.exit(0);
        }
        long rows = 0;
        long[] updated = new long[rounds], deleted = new long[rounds];
        Path[] updateDirs = new Path[rounds], deleteDirs = new Path[rounds];
        CQLSSTableWriter[] updates = new CQLSSTableWriter[rounds], deletes = new CQLSSTableWriter[rounds];
        for (int k = 0; k < rounds; k++) {
            String suffix = rounds == 1 ? "" : "-" + k;
            updateDirs[k] = dir.resolve("pass-update" + suffix);
            deleteDirs[k] = dir.resolve("pass-delete" + suffix);
            Files.createDirectories(updateDirs[k]);
            Files.createDirectories(deleteDirs[k]);
            updates[k] = open(updateDirs[k], INSERT);
            deletes[k] = open(deleteDirs[k], DELETE);
        }
        try {
            for (DecoratedKey key : keys) {
                String id = StandardCharsets.UTF_8.decode(key.getKey().duplicate()).toString();
                // Which rows change: a stream of its own, so the replay is untouched.
                SplittableRandom pick = new SplittableRandom(seed * 17 + id.hashCode());
                int offset = pick.nextInt(every);
                int[] picked = new int[rounds];
                rows += replay(id, seed, reading -> {
                    // Round k picks the rows at offset + k: i % every == offset for round 0.
                    int k = Math.floorMod(reading.index - offset, every);
                    if (k >= rounds) return;
                    long later = afterDataset ? AFTER_DATASET_MICROS + k * 60_000_000L + reading.index
                                              : reading.writeTimestampMicros + LATER_MICROS + k;
                    if (picked[k]++ % 10 == 9) {
                        deletes[k].addRow(later, id, new Date(reading.ts));
                        deleted[k]++;
                    } else {
                        updates[k].addRow(id, new Date(reading.ts), reading.temperature + 0.5, reading.humidity,
                                          reading.pressure, reading.battery, reading.rssi,
                                          reading.status.equals("OK") ? "WARN" : "OK", reading.firmware,
                                          "corrected by re-import", reading.tags, reading.counters(), later,
                                          reading.ttl);
                        updated[k]++;
                    }
                });
            }
        } finally {
            for (int k = 0; k < rounds; k++) {
                updates[k].close();
                deletes[k].close();
            }
        }
        for (int k = 0; k < rounds; k++) {
            moveGeneration(updateDirs[k], dir, firstGeneration + 2 * k);
            moveGeneration(deleteDirs[k], dir, firstGeneration + 2 * k + 1);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long updatedTotal = Arrays.stream(updated).sum(), deletedTotal = Arrays.stream(deleted).sum();
        System.out.printf("partitions=%d rows=%d updated=%d deleted=%d every=%d seed=%d format=%s seconds=%.1f%n",
                          partitions, rows, updatedTotal, deletedTotal, every, seed, format, seconds);
        if (rounds > 1) {
            for (int k = 0; k < rounds; k++) {
                System.out.printf("round=%d updated=%d deleted=%d update_generation=%d delete_generation=%d%n",
                                  k + 1, updated[k], deleted[k], firstGeneration + 2 * k, firstGeneration + 2 * k + 1);
            }
        }
        System.exit(0);
    }

    /** One reading of a sensor, as GenerateDataset draws it. */
    static final class Reading {
        int index;  // the sensor's readings, newest first, from 0
        long ts;    // milliseconds
        double temperature, humidity, pressure;
        int battery, rssi, ttl;
        String status, firmware;
        boolean hasNote;
        Set<String> tags;
        long rx, tx, err;
        long writeTimestampMicros;

        Map<String, Integer> counters() {
            Map<String, Integer> counters = new LinkedHashMap<>();
            counters.put("rx", (int) rx);
            counters.put("tx", (int) tx);
            counters.put("err", (int) err + 1);
            return counters;
        }
    }

    interface ReadingVisitor {
        void visit(Reading reading) throws Exception;
    }

    /**
     * GenerateDataset's per-partition stream of sensor {@code id}, replayed
     * draw for draw: each reading to {@code visitor}. Returns how many there are.
     */
    static int replay(String id, long seed, ReadingVisitor visitor) throws Exception {
        SplittableRandom r = new SplittableRandom(seed * 31 + id.hashCode());
        int count = 300 + r.nextInt(2700);
        int intervalMs = 10_000 * (1 + r.nextInt(6));
        double baseTemp = 5 + r.nextDouble() * 25;
        double baseHumidity = 30 + r.nextDouble() * 40;
        Reading reading = new Reading();
        reading.firmware = FIRMWARE[r.nextInt(FIRMWARE.length)];
        boolean ttlSensor = r.nextInt(10) == 0;
        reading.ttl = ttlSensor ? TTL_SECONDS : 0;
        reading.battery = 3000 + r.nextInt(600);
        reading.rx = r.nextInt(1000);
        reading.tx = r.nextInt(1000);
        reading.err = 0;
        long ts = END_MILLIS - r.nextInt(intervalMs);
        for (int i = 0; i < count; i++) {
            reading.index = i;
            reading.ts = ts;
            reading.temperature = Math.round((baseTemp + 4 * Math.sin(ts / 3.6e6) + r.nextGaussian() * 0.3) * 100) / 100.0;
            reading.humidity = Math.round((baseHumidity + r.nextGaussian() * 2) * 10) / 10.0;
            reading.pressure = 1013.25 + r.nextGaussian() * 5;
            if (r.nextInt(50) == 0) reading.battery = Math.max(2400, reading.battery - 1);
            reading.rssi = -40 - r.nextInt(60);
            int s = r.nextInt(100);
            reading.status = s < 93 ? "OK" : s < 99 ? "WARN" : "ALARM";
            reading.hasNote = r.nextInt(20) == 0;
            if (reading.hasNote) r.nextInt(NOTES.length);
            reading.tags = new LinkedHashSet<>();
            int ntags = 1 + r.nextInt(3);
            for (int t = 0; t < ntags; t++) reading.tags.add(TAGS[r.nextInt(TAGS.length)]);
            reading.rx += r.nextInt(20);
            reading.tx += r.nextInt(20);
            if (r.nextInt(30) == 0) reading.err++;
            reading.writeTimestampMicros = ts * 1000 + r.nextInt(1000);
            visitor.visit(reading);
            ts -= intervalMs - 500 + r.nextInt(1000);
        }
        return count;
    }

    /** The change of a kind other than {@code changes}, one partition at a time. */
    static final class OtherChange {
        final String kind;
        final List<Path> passDirs = new ArrayList<>();
        final List<CQLSSTableWriter> writers = new ArrayList<>();
        long rows, updated, deleted, rowDeletions, rangeDeletions, partitionDeletions;

        OtherChange(Path dir, String kind) throws java.io.IOException {
            this.kind = kind;
            List<String> statements = kind.equals("deletions") ? List.of(DELETE, DELETE_RANGE, DELETE_PARTITION)
                                      : kind.equals("column") ? List.of(SET_NOTE)
                                      : List.of(INSERT);
            for (int i = 0; i < statements.size(); i++) {
                Path pass = dir.resolve("pass-" + kind + "-" + i);
                Files.createDirectories(pass);
                passDirs.add(pass);
                writers.add(open(pass, statements.get(i)));
            }
        }

        /** GenerateDataset's rows of one sensor, replayed, and this change's writes of them. */
        void partition(DecoratedKey key, long seed, int every) throws Exception {
            String id = StandardCharsets.UTF_8.decode(key.getKey().duplicate()).toString();
            SplittableRandom pick = new SplittableRandom(seed * 17 + id.hashCode());
            int offset = pick.nextInt(every);
            boolean wholePartition = pick.nextInt(kind.equals("deletions") ? 300 : 100) == 0;
            if (kind.equals("deletions") && wholePartition) {
                writers.get(2).addRow(AFTER_DATASET_MICROS, id);
                partitionDeletions++;
            }
            int[] picked = {0};
            long[] range = {0, 0};  // the first and last ts of the open range deletion
            int[] rangeRows = {0};  // its rows so far
            int count = replay(id, seed, reading -> {
                boolean isPicked = Math.floorMod(reading.index - offset, every) == 0;
                if (kind.equals("deletions")) {
                    if (wholePartition) return;
                    if (rangeRows[0] > 0) {  // the second or third row of a range
                        range[1] = reading.ts;
                        if (++rangeRows[0] == 3) {
                            writers.get(1).addRow(AFTER_DATASET_MICROS, id, new Date(range[0]), new Date(range[1]));
                            rangeDeletions++;
                            deleted += 3;
                            rangeRows[0] = 0;
                        }
                    } else if (isPicked && picked[0]++ % 2 == 0) {
                        writers.get(0).addRow(AFTER_DATASET_MICROS, id, new Date(reading.ts));
                        rowDeletions++;
                        deleted++;
                    } else if (isPicked) {
                        range[0] = range[1] = reading.ts;
                        rangeRows[0] = 1;
                    }
                } else if (kind.equals("column")) {
                    if (!isPicked) return;
                    writers.get(0).addRow(reading.writeTimestampMicros - 1, "set one microsecond before the row",
                                          id, new Date(reading.ts));
                    if (!reading.hasNote) updated++;
                } else if (kind.equals("ttl")) {
                    if (!isPicked) return;
                    writers.get(0).addRow(id, new Date(reading.ts), reading.temperature + 0.5, reading.humidity,
                                          reading.pressure, reading.battery, reading.rssi,
                                          reading.status.equals("OK") ? "WARN" : "OK", reading.firmware,
                                          "kept for a day", reading.tags, reading.counters(),
                                          AFTER_DATASET_MICROS + reading.index, TTL_DAY_SECONDS);
                    updated++;
                } else if (wholePartition) {
                    writers.get(0).addRow(id, new Date(reading.ts), reading.temperature + 0.5, reading.humidity,
                                          reading.pressure, reading.battery, reading.rssi,
                                          reading.status.equals("OK") ? "WARN" : "OK", reading.firmware,
                                          "rewritten whole", reading.tags, reading.counters(),
                                          AFTER_DATASET_MICROS + reading.index, reading.ttl);
                    updated++;
                }
            });
            rows += count;
            if (kind.equals("deletions") && wholePartition) deleted += count;
            if (rangeRows[0] > 0) {  // a range cut short by the partition's end
                writers.get(1).addRow(AFTER_DATASET_MICROS, id, new Date(range[0]), new Date(range[1]));
                rangeDeletions++;
                deleted += rangeRows[0];
            }
        }

        void close() throws java.io.IOException {
            for (CQLSSTableWriter writer : writers) writer.close();
        }

        void finish(int firstGeneration) throws java.io.IOException {
            Path dir = passDirs.get(0).getParent();
            for (int i = 0; i < passDirs.size(); i++) moveGeneration(passDirs.get(i), dir, firstGeneration + i);
        }
    }
}
