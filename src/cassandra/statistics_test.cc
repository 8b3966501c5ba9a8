#include "cassandra/statistics.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "util/strings.h"
#include "test_paths.h"

namespace cqlite {
namespace {

const std::string kFixtures = std::string(CQLITE_SHARED_DIR) + "/cassandra-fixtures";

#define SKIP_WITHOUT_FIXTURES()                                                      \
  if (!LocalFileSystem().IsDirectory(kFixtures)) {                                   \
    GTEST_SKIP() << "fixtures not found at " << kFixtures << " (CQLITE_SHARED_DIR)"; \
  }

void Walk(const std::string& dir, const std::function<void(const std::string&)>& fn) {
  auto entries = LocalFileSystem().ListDirectory(dir);
  if (!entries.ok()) return;
  for (const auto& e : *entries) {
    std::string path = JoinPath(dir, e.name);
    if (e.is_directory) {
      Walk(path, fn);
    } else {
      fn(path);
    }
  }
}

std::vector<std::string> AllStatisticsFiles() {
  std::vector<std::string> out;
  Walk(kFixtures, [&](const std::string& path) {
    if (EndsWith(path, "-Statistics.db")) out.push_back(path);
  });
  return out;
}

Result<Statistics> Read(const std::string& path) {
  auto name = ParseSSTableFileName(BaseName(path));
  if (!name.ok()) return name.status();
  return ReadStatistics(LocalFileSystem(), path, name->version);
}

std::vector<std::string> Names(const std::vector<HeaderColumn>& columns) {
  std::vector<std::string> out;
  for (const auto& c : columns) out.push_back(c.name);
  return out;
}

TEST(StatisticsTest, EveryFixtureParses) {
  SKIP_WITHOUT_FIXTURES();
  auto files = AllStatisticsFiles();
  ASSERT_GE(files.size(), 171u);
  std::map<std::string, int> versions;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    auto stats = Read(path);
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    ++versions[ParseSSTableFileName(BaseName(path))->version.name];
    ASSERT_TRUE(stats->validation.has_value());
    ASSERT_TRUE(stats->stats.has_value());
    ASSERT_TRUE(stats->header.has_value());
    EXPECT_TRUE(EndsWith(stats->validation->partitioner, "Partitioner")) << stats->validation->partitioner;
    EXPECT_GT(stats->validation->bloom_filter_fp_chance, 0.0);
    EXPECT_LE(stats->validation->bloom_filter_fp_chance, 1.0);
    const StatsMetadata& s = *stats->stats;
    EXPECT_LE(s.min_timestamp, s.max_timestamp);
    EXPECT_LE(s.min_ttl, s.max_ttl);
    EXPECT_GE(s.estimated_partition_count, 1);
    EXPECT_GE(s.total_rows, 0);
    EXPECT_EQ(s.estimated_partition_size.offsets.size() + 1, s.estimated_partition_size.buckets.size());
    const SerializationHeader& h = *stats->header;
    ASSERT_NE(h.partition_key_type, nullptr);
    for (const auto& t : h.clustering_types) ASSERT_NE(t, nullptr);
    for (const auto* cols : {&h.static_columns, &h.regular_columns}) {
      for (const auto& c : *cols) {
        EXPECT_FALSE(c.name.empty());
        ASSERT_NE(c.type, nullptr) << c.name;
      }
    }
    // The header's encoding base is never above the smallest timestamp written.
    EXPECT_LE(h.stats.min_timestamp, s.min_timestamp);
  }
  for (const char* v : {"ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"}) {
    EXPECT_GT(versions[v], 0) << "no fixture of version " << v;
  }
}

TEST(StatisticsTest, LegacyTablesHaveTheExpectedSchema) {
  SKIP_WITHOUT_FIXTURES();
  // EXPECTED_CONTENT.md: legacy_<v>_simple (pk text PRIMARY KEY, val text),
  // legacy_<v>_clust (pk text, ck text, val text, PRIMARY KEY (pk, ck)).
  for (const char* v : {"ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"}) {
    SCOPED_TRACE(v);
    std::string format = std::string(v) == "da" ? "bti" : "big";
    std::string dir = StrCat(kFixtures, "/apache-cassandra/legacy-sstables/", v, "/legacy_tables/");
    auto simple = Read(StrCat(dir, "legacy_", v, "_simple/", v, "-1-", format, "-Statistics.db"));
    ASSERT_TRUE(simple.ok()) << simple.status().ToString();
    // EXPECTED_CONTENT.md says Murmur3Partitioner, but every legacy file records
    // ByteOrderedPartitioner (the generating test runs with it).
    EXPECT_EQ(simple->validation->partitioner, "org.apache.cassandra.dht.ByteOrderedPartitioner");
    EXPECT_EQ(simple->header->partition_key_type->kind, CqlKind::kText);
    EXPECT_TRUE(simple->header->clustering_types.empty());
    EXPECT_EQ(Names(simple->header->regular_columns), std::vector<std::string>{"val"});
    EXPECT_EQ(simple->stats->estimated_partition_count, 5);  // pk '0'..'4'
    EXPECT_EQ(simple->stats->total_rows, 5);
    EXPECT_EQ(simple->stats->min_local_deletion_time, kNoDeletionTime);

    auto clust = Read(StrCat(dir, "legacy_", v, "_clust/", v, "-1-", format, "-Statistics.db"));
    ASSERT_TRUE(clust.ok()) << clust.status().ToString();
    ASSERT_EQ(clust->header->clustering_types.size(), 1u);
    EXPECT_EQ(clust->header->clustering_types[0]->kind, CqlKind::kText);
    EXPECT_EQ(Names(clust->header->regular_columns), std::vector<std::string>{"val"});
    EXPECT_EQ(clust->stats->estimated_partition_count, 5);
    EXPECT_EQ(clust->stats->total_rows, 250);  // 5 partitions x 50 rows
    SSTableVersion version = ParseSSTableFileName(StrCat(v, "-1-", format, "-Data.db"))->version;
    EXPECT_EQ(clust->stats->originating_host_id.has_value(), version.HasOriginatingHostId());
    EXPECT_EQ(clust->stats->first_key.has_value(), version.HasKeyRange());
    if (version.HasKeyRange()) {
      EXPECT_EQ(*clust->stats->first_key, "0");  // text keys '0'..'4' in byte order
      EXPECT_EQ(*clust->stats->last_key, "4");
    }
    EXPECT_EQ(clust->stats->token_space_coverage.has_value(), version.HasTokenSpaceCoverage());
    // Clustering keys start with "0" + "0123456789"...: hex 30 30 31 32 ...
    ASSERT_FALSE(clust->stats->min_clustering_values.empty());
    EXPECT_TRUE(StartsWith(clust->stats->min_clustering_values[0], "3030313233")) << clust->stats->min_clustering_values[0];
  }
}

TEST(StatisticsTest, ScyllaFixturesMatchTheirDocumentedWrites) {
  SKIP_WITHOUT_FIXTURES();
  // scylladb-3.x/README.md: INSERT (1,2,3) USING TTL 1135, USING TIMESTAMP 1525385507816568.
  auto ttl = Read(kFixtures + "/scylladb-3.x/write-goldens/write_ttled_row/mc-1-big-Statistics.db");
  ASSERT_TRUE(ttl.ok()) << ttl.status().ToString();
  EXPECT_EQ(ttl->validation->partitioner, "org.apache.cassandra.dht.Murmur3Partitioner");
  EXPECT_EQ(ttl->stats->min_timestamp, 1525385507816568);
  EXPECT_EQ(ttl->stats->max_timestamp, 1525385507816568);
  EXPECT_EQ(ttl->stats->min_ttl, 1135);
  EXPECT_EQ(ttl->stats->max_ttl, 1135);
  EXPECT_EQ(ttl->header->stats.min_timestamp, 1525385507816568);
  EXPECT_EQ(ttl->header->stats.min_ttl, 1135);
  EXPECT_EQ(ttl->header->stats.min_local_deletion_time, ttl->stats->min_local_deletion_time);
  EXPECT_EQ(Names(ttl->header->regular_columns), std::vector<std::string>{"rc"});
  EXPECT_EQ(ttl->header->partition_key_type->kind, CqlKind::kInt);

  // compact_deleted_row mc-2: row DELETE at ts 1533591535618022 (ldt 1533591535),
  // then INSERT rc2 at ts 1533591593120115.
  auto del = Read(kFixtures + "/scylladb-3.x/uncompressed/compact_deleted_row/mc-2-big-Statistics.db");
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_EQ(del->stats->min_timestamp, 1533591535618022);
  EXPECT_EQ(del->stats->max_timestamp, 1533591593120115);
  EXPECT_EQ(del->stats->min_local_deletion_time, 1533591535);
  EXPECT_EQ(del->stats->max_local_deletion_time, kNoDeletionTime);
  EXPECT_EQ(del->header->stats.min_local_deletion_time, 1533591535);
  EXPECT_EQ(Names(del->header->regular_columns), std::vector<std::string>{"rc2"});

  // Static column: write_empty_static_row (pk int, ck int, st int static, rc int),
  // timestamps 1525385507816568 + 10 µs per statement. Its table of contents
  // lists the sections out of type order.
  auto st = Read(kFixtures + "/scylladb-3.x/write-goldens/write_empty_static_row/mc-1-big-Statistics.db");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(Names(st->header->static_columns), std::vector<std::string>{"st"});
  EXPECT_EQ(Names(st->header->regular_columns), std::vector<std::string>{"rc"});
  EXPECT_EQ(st->stats->min_timestamp, 1525385507816568);
  EXPECT_EQ(st->stats->max_timestamp, 1525385507816578);
  ASSERT_EQ(st->sections.size(), 4u);
  EXPECT_EQ(st->sections[0].type, 3);
}

TEST(StatisticsTest, TruncatedAtEveryLengthIsACleanError) {
  SKIP_WITHOUT_FIXTURES();
  for (const char* rel : {"/apache-cassandra/legacy-sstables/mc/legacy_tables/legacy_mc_clust/mc-1-big-Statistics.db",
                          "/apache-cassandra/legacy-sstables/oa/legacy_tables/legacy_oa_clust/oa-1-big-Statistics.db"}) {
    std::string path = kFixtures + rel;
    auto name = ParseSSTableFileName(BaseName(path));
    ASSERT_TRUE(name.ok());
    auto bytes = LocalFileSystem().ReadFileToString(path);
    ASSERT_TRUE(bytes.ok());
    for (size_t cut = 0; cut < bytes->size(); ++cut) {
      auto span = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), cut);
      auto stats = ParseStatistics(span, "cut-Statistics.db", name->version);
      ASSERT_FALSE(stats.ok()) << rel << " cut at " << cut;
      EXPECT_EQ(stats.status().kind(), StatusKind::kCorruption) << stats.status().ToString();
      EXPECT_NE(stats.status().message().find("cut-Statistics.db"), std::string::npos);
    }
  }
}

TEST(StatisticsTest, CorruptedBytesNeverCrash) {
  SKIP_WITHOUT_FIXTURES();
  // mc has no checksums, so every corrupted byte reaches the section parsers.
  std::string path = kFixtures + "/scylladb-3.x/write-goldens/write_user_defined_type_table/mc-1-big-Statistics.db";
  auto bytes = LocalFileSystem().ReadFileToString(path);
  ASSERT_TRUE(bytes.ok());
  for (size_t i = 0; i < bytes->size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = *bytes;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      auto stats = ParseStatistics(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()),
                                   "x-Statistics.db", SSTableVersion{"mc", SSTableFormat::kBig});
      if (!stats.ok()) {
        EXPECT_NE(stats.status().message().find("x-Statistics.db"), std::string::npos);
      }
    }
  }
}

TEST(StatisticsTest, WrongVersionIsAnErrorNotGarbage) {
  SKIP_WITHOUT_FIXTURES();
  // An `oa` file read as `nb` (and vice versa) must not parse cleanly.
  std::string dir = kFixtures + "/apache-cassandra/legacy-sstables/";
  auto oa = LocalFileSystem().ReadFileToString(dir + "oa/legacy_tables/legacy_oa_clust/oa-1-big-Statistics.db");
  auto nb = LocalFileSystem().ReadFileToString(dir + "nb/legacy_tables/legacy_nb_clust/nb-1-big-Statistics.db");
  ASSERT_TRUE(oa.ok() && nb.ok());
  auto as_span = [](const std::string& s) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  EXPECT_FALSE(ParseStatistics(as_span(*oa), "oa", SSTableVersion{"nb", SSTableFormat::kBig}).ok());
  EXPECT_FALSE(ParseStatistics(as_span(*nb), "nb", SSTableVersion{"oa", SSTableFormat::kBig}).ok());
}

TEST(StatisticsTest, FlippedBitFromNaOnFailsTheChecksum) {
  SKIP_WITHOUT_FIXTURES();
  std::string path =
      kFixtures + "/apache-cassandra/legacy-sstables/nb/legacy_tables/legacy_nb_simple/nb-1-big-Statistics.db";
  auto bytes = LocalFileSystem().ReadFileToString(path);
  ASSERT_TRUE(bytes.ok());
  std::string bad = *bytes;
  bad[bad.size() - 10] ^= 0x01;  // inside the last (HEADER) section
  auto stats = ParseStatistics(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()),
                               "x-Statistics.db", SSTableVersion{"nb", SSTableFormat::kBig});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("checksum"), std::string::npos) << stats.status().message();
  EXPECT_NE(stats.status().message().find("HEADER"), std::string::npos) << stats.status().message();
}

}  // namespace
}  // namespace cqlite
