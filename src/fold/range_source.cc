#include "fold/range_source.h"

namespace cqlite {

namespace {

class RangeFoldSource final : public FoldSource {
 public:
  RangeFoldSource(std::unique_ptr<FoldSource> source, Murmur3Range range)
      : source_(std::move(source)), range_(range) {}

  Result<bool> Next(FoldPartition* partition) override {
    while (!ended_) {
      ASSIGN_OR_RETURN(bool more, source_->Next(partition));
      if (!more) break;
      Murmur3Range::Place place = range_.Locate(partition->key);
      if (place == Murmur3Range::Place::kAfter) break;
      if (place == Murmur3Range::Place::kInside) return true;
      RETURN_IF_ERROR(source_->SkipRest(partition));
    }
    ended_ = true;
    return false;
  }

  Status More(FoldPartition* partition) override { return source_->More(partition); }
  Status SkipRest(FoldPartition* partition) override { return source_->SkipRest(partition); }
  const std::string& name() const override { return source_->name(); }
  bool repeats_partitions() const override { return source_->repeats_partitions(); }

 private:
  std::unique_ptr<FoldSource> source_;
  Murmur3Range range_;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<FoldSource> RestrictToRange(std::unique_ptr<FoldSource> source, Murmur3Range range) {
  return std::make_unique<RangeFoldSource>(std::move(source), range);
}

}  // namespace cqlite
