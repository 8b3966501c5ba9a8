// The codec singletons behind GetCodec, one per implementation file. Internal
// to src/io: callers use GetCodec.
#pragma once

#include "io/codec.h"

namespace cqlite {

const Codec& NoneCodecInstance();
const Codec& Lz4CodecInstance();
const Codec& SnappyCodecInstance();
const Codec& DeflateCodecInstance();
const Codec& ZstdCodecInstance();

}  // namespace cqlite
