// The option values that commands share: instants, spans of time, sizes.
#include "cli/commands.h"

#include "util/strings.h"
#include "util/time_format.h"

namespace cqlite {

CLI::Validator InstantOption() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto seconds = ParseInstantSeconds(text, "");  // CLI11 names the option
        if (!seconds.ok()) return seconds.status().message();
        text = std::to_string(*seconds);
        return "";
      },
      "SECONDS|ISO-8601", "instant");
}

CLI::Validator DurationOption() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto seconds = ParseDurationSeconds(text, "");
        if (!seconds.ok()) return seconds.status().message();
        text = std::to_string(*seconds);
        return "";
      },
      "DURATION", "duration");
}

CLI::Validator ByteSizeOption() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::optional<int64_t> bytes = ParseByteSize(text);
        if (!bytes) return StrCat("'", text, "' is not a size (give bytes, or a number with KiB, MiB, GiB, KB, MB or GB)");
        text = std::to_string(*bytes);
        return "";
      },
      "BYTES", "byte size");
}

}  // namespace cqlite
