#include "cassandra/sstable_version.h"

#include <gtest/gtest.h>

namespace cqlite {
namespace {

SSTableVersion V(const char* name) {
  auto v = MakeSSTableVersion(name, std::string_view(name) == "da" ? SSTableFormat::kBti : SSTableFormat::kBig);
  EXPECT_TRUE(v.ok()) << name;
  return v.ok() ? *v : SSTableVersion{};
}

TEST(SSTableFileNameTest, ParsesNumericGeneration) {
  auto f = ParseSSTableFileName("nb-1-big-Data.db");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->version.name, "nb");
  EXPECT_EQ(f->version.format, SSTableFormat::kBig);
  EXPECT_EQ(f->generation, "1");
  EXPECT_EQ(f->component, "Data.db");
  EXPECT_EQ(f->prefix, "nb-1-big-");
}

TEST(SSTableFileNameTest, ParsesUuidGeneration) {
  auto f = ParseSSTableFileName("oa-3gad_0s9b_2i0l22ae3yq5c6f0q3-big-Statistics.db");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->version.name, "oa");
  EXPECT_EQ(f->generation, "3gad_0s9b_2i0l22ae3yq5c6f0q3");
  EXPECT_EQ(f->component, "Statistics.db");
  EXPECT_EQ(f->prefix, "oa-3gad_0s9b_2i0l22ae3yq5c6f0q3-big-");
}

TEST(SSTableFileNameTest, ParsesBti) {
  auto f = ParseSSTableFileName("da-1-bti-Data.db");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->version.name, "da");
  EXPECT_EQ(f->version.format, SSTableFormat::kBti);
  EXPECT_EQ(f->component, "Data.db");
  EXPECT_EQ(f->prefix, "da-1-bti-");
}

TEST(SSTableFileNameTest, RejectsUnknownVersionsNamingTheFile) {
  for (const char* name : {"la-1-big-Data.db", "ka-1-big-Data.db", "mf-1-big-Data.db", "ob-1-big-Data.db",
                           "da-1-big-Data.db", "nb-1-bti-Data.db", "db-1-bti-Data.db", "nb-1-xyz-Data.db"}) {
    auto f = ParseSSTableFileName(name);
    ASSERT_FALSE(f.ok()) << name;
    EXPECT_EQ(f.status().kind(), StatusKind::kNotSupported) << name;
    EXPECT_NE(f.status().message().find(name), std::string::npos) << f.status().message();
  }
}

TEST(SSTableFileNameTest, RejectsNonSSTableNames) {
  for (const char* name : {"", "Data.db", "nb-1-big", "nb--big-Data.db", "NB-1-big-Data.db", "n-1-big-Data.db",
                           "nb-1-big-", "nb-1!-big-Data.db", "manifest.json"}) {
    auto f = ParseSSTableFileName(name);
    ASSERT_FALSE(f.ok()) << name;
    EXPECT_EQ(f.status().kind(), StatusKind::kInvalidArgument) << name;
  }
}

// Expected values transcribed from BigFormat.BigVersion (Cassandra 5.0.6) and,
// for `nc`, the 2023 trunk BigVersion; BtiVersion returns true for all but
// hasLegacyMinMax.
TEST(SSTableVersionTest, FeatureFlagsMatchCassandra) {
  struct Row {
    const char* name;
    bool lower_bound, intervals, accurate, legacy, host_id, max_compressed, pending, transient_, checksum,
        improved, deletion_marker, key_range, uint_ldt, coverage;
  };
  const Row rows[] = {
      // name lb    iv     acc    leg   host   maxc   pend   trans  cksum  impr   pldm   keyr   uint   cov
      {"ma", false, false, false, true, false, false, false, false, false, false, false, false, false, false},
      {"mb", true, false, false, true, false, false, false, false, false, false, false, false, false, false},
      {"mc", true, true, false, true, false, false, false, false, false, false, false, false, false, false},
      {"md", true, true, true, true, false, false, false, false, false, false, false, false, false, false},
      {"me", true, true, true, true, true, false, false, false, false, false, false, false, false, false},
      {"na", true, true, true, true, false, true, true, true, true, false, false, false, false, false},
      {"nb", true, true, true, true, true, true, true, true, true, false, false, false, false, false},
      {"nc", true, true, true, true, true, true, true, true, true, true, true, true, false, false},
      {"oa", true, true, false, false, true, true, true, true, true, true, true, true, true, true},
      {"da", true, true, true, false, true, true, true, true, true, true, true, true, true, true},
  };
  for (const Row& r : rows) {
    SSTableVersion v = V(r.name);
    SCOPED_TRACE(r.name);
    EXPECT_EQ(v.HasCommitLogLowerBound(), r.lower_bound);
    EXPECT_EQ(v.HasCommitLogIntervals(), r.intervals);
    EXPECT_EQ(v.HasAccurateMinMax(), r.accurate);
    EXPECT_EQ(v.HasLegacyMinMax(), r.legacy);
    EXPECT_EQ(v.HasOriginatingHostId(), r.host_id);
    EXPECT_EQ(v.HasMaxCompressedLength(), r.max_compressed);
    EXPECT_EQ(v.HasPendingRepair(), r.pending);
    EXPECT_EQ(v.HasIsTransient(), r.transient_);
    EXPECT_EQ(v.HasMetadataChecksum(), r.checksum);
    EXPECT_EQ(v.HasImprovedMinMax(), r.improved);
    EXPECT_EQ(v.HasPartitionLevelDeletionPresenceMarker(), r.deletion_marker);
    EXPECT_EQ(v.HasKeyRange(), r.key_range);
    EXPECT_EQ(v.HasUIntDeletionTime(), r.uint_ldt);
    EXPECT_EQ(v.HasTokenSpaceCoverage(), r.coverage);
  }
}

}  // namespace
}  // namespace cqlite
