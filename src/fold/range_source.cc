#include "fold/range_source.h"

#include "util/strings.h"

namespace cqlite {

namespace {

class RangeFoldSource final : public FoldSource {
 public:
  // A source whose keys are known to lie wholly outside the range is not read at all.
  RangeFoldSource(std::unique_ptr<FoldSource> source, Murmur3RangeSet ranges)
      : source_(std::move(source)), ranges_(std::move(ranges)) {
    if (std::optional<PartitionKeySpan> span = source_->key_span()) {
      ended_ = !ranges_.Intersects(Murmur3Token(span->first), Murmur3Token(span->last));
    }
  }

  Result<bool> Next(FoldPartition* partition) override { return NextAfter(partition, nullptr); }

  // Partitions in the ranges that `skip` turns down are passed over as those
  // outside them are, from their keys alone where the source can.
  Result<bool> NextNotSkipped(FoldPartition* partition, const KeyTest& skip) override {
    return NextAfter(partition, &skip);
  }

  Status More(FoldPartition* partition) override { return source_->More(partition); }
  Status SkipRest(FoldPartition* partition) override { return source_->SkipRest(partition); }
  const std::string& name() const override { return source_->name(); }
  std::optional<PartitionKeySpan> key_span() const override { return source_->key_span(); }
  bool repeats_partitions() const override { return source_->repeats_partitions(); }
  void PassOverRowsNotWanted(const RowTest* wanted) override { source_->PassOverRowsNotWanted(wanted); }

 private:
  Result<bool> NextAfter(FoldPartition* partition, const KeyTest* skip) {
    if (ended_) return false;
    // Partitions before the ranges, or between two of them, are passed over;
    // the first one past them ends the source.
    auto outside = [this, skip](std::string_view key) {
      switch (ranges_.Locate(key)) {
        case Murmur3Range::Place::kBefore: return true;
        case Murmur3Range::Place::kAfter: return false;
        default: return skip != nullptr && (*skip)(key);
      }
    };
    ASSIGN_OR_RETURN(bool more, source_->NextNotSkipped(partition, outside));
    if (more && ranges_.Locate(partition->key) == Murmur3Range::Place::kInside) return true;
    if (more) {
      // Past the ranges, but not past the source's last key (which let
      // readers of later ranges pass the source over).
      std::optional<PartitionKeySpan> span = source_->key_span();
      if (span && Murmur3Token(partition->key) > Murmur3Token(span->last)) {
        return Status::Corruption(StrCat(source_->name(), ": a partition after Statistics.db's last key"));
      }
    }
    ended_ = true;
    return false;
  }

  std::unique_ptr<FoldSource> source_;
  Murmur3RangeSet ranges_;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<FoldSource> RestrictToRange(std::unique_ptr<FoldSource> source, Murmur3Range range) {
  return std::make_unique<RangeFoldSource>(std::move(source), Murmur3RangeSet({range}));
}

std::unique_ptr<FoldSource> RestrictToRanges(std::unique_ptr<FoldSource> source, Murmur3RangeSet ranges) {
  return std::make_unique<RangeFoldSource>(std::move(source), std::move(ranges));
}

}  // namespace cqlite
