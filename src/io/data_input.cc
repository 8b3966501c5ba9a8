#include "io/data_input.h"

#include <algorithm>

#include "util/strings.h"

namespace cqlite {

namespace {

class MemorySource final : public ChunkSource {
 public:
  explicit MemorySource(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  Result<std::span<const uint8_t>> NextChunk() override {
    auto out = done_ ? std::span<const uint8_t>() : bytes_;
    done_ = true;
    return out;
  }
  uint64_t TotalLength() const override { return bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<ChunkSource> MemoryChunkSource(std::span<const uint8_t> bytes) {
  return std::make_unique<MemorySource>(bytes);
}

DataInput::DataInput(std::unique_ptr<ChunkSource> source, std::string name)
    : source_(std::move(source)), name_(std::move(name)) {}

DataInput::DataInput(std::span<const uint8_t> bytes, std::string name)
    : DataInput(MemoryChunkSource(bytes), std::move(name)) {}

bool DataInput::Refill() {
  if (exhausted_ || !status_.ok()) return false;
  consumed_before_chunk_ += chunk_.size();
  chunk_ = {};
  pos_ = 0;
  auto next = source_->NextChunk();
  if (!next.ok()) {
    Fail(next.status());
    return false;
  }
  if (next->empty()) {
    exhausted_ = true;
    return false;
  }
  chunk_ = *next;
  return true;
}

bool DataInput::AtEnd() {
  if (!status_.ok()) return true;
  if (pos_ < chunk_.size()) return false;
  return !Refill();
}

void DataInput::ReadSlow(uint8_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    if (pos_ == chunk_.size() && !Refill()) {
      std::memset(out + done, 0, n - done);
      if (status_.ok()) {
        Fail(StrCat("unexpected end of data: needed ", n - done, " more bytes"));
      }
      return;
    }
    size_t take = std::min(n - done, chunk_.size() - pos_);
    std::memcpy(out + done, chunk_.data() + pos_, take);
    pos_ += take;
    done += take;
  }
}

uint64_t DataInput::ReadUnsignedVIntSlow() {
  uint8_t first = ReadU8();
  if (first < 0x80) return first;
  // The number of leading one bits is the number of bytes that follow.
  int extra = first == 0xff ? 8 : __builtin_clz(static_cast<uint32_t>(static_cast<uint8_t>(~first)) << 24);
  uint64_t value = first & (0xffu >> extra);
  for (int i = 0; i < extra; ++i) value = (value << 8) | ReadU8();
  return value;
}

uint32_t DataInput::FailVInt32(uint64_t value) {
  Fail(StrCat("variable-length integer does not fit in 32 bits: ", value));
  return 0;
}

void DataInput::ReadBytesSlow(uint64_t n, std::string* out) {
  if (!status_.ok()) return;
  uint64_t total = source_->TotalLength();
  if (total != UINT64_MAX && n > total - std::min(total, position())) {
    Fail(StrCat("length ", n, " runs past the end of the data (", total - std::min(total, position()),
                " bytes left)"));
    return;
  }
  // The announced total may itself be corrupt (a CompressionInfo.db data
  // length): append chunk by chunk, so memory follows the bytes present.
  while (n > 0) {
    if (pos_ == chunk_.size() && !Refill()) {
      if (status_.ok()) Fail(StrCat("unexpected end of data: needed ", n, " more bytes"));
      return;
    }
    size_t take = static_cast<size_t>(std::min<uint64_t>(n, chunk_.size() - pos_));
    out->append(reinterpret_cast<const char*>(chunk_.data() + pos_), take);
    pos_ += take;
    n -= take;
  }
}

void DataInput::Skip(uint64_t n) {
  while (n > 0 && status_.ok()) {
    if (pos_ == chunk_.size() && !Refill()) {
      Fail(StrCat("unexpected end of data while skipping ", n, " bytes"));
      return;
    }
    size_t take = std::min<uint64_t>(n, chunk_.size() - pos_);
    pos_ += take;
    n -= take;
  }
}

void DataInput::Fail(const std::string& what) {
  if (!status_.ok()) return;
  Fail(Status::Corruption(StrCat(name_, ": ", what, " (at byte offset ", position(), ")")));
}

void DataInput::Fail(Status status) {
  if (!status_.ok()) return;
  status_ = std::move(status);
  // Empty the buffer so that the inline fast paths fail too from now on.
  consumed_before_chunk_ = position();
  chunk_ = {};
  pos_ = 0;
  exhausted_ = true;
}

}  // namespace cqlite
