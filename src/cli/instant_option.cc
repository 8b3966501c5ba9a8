#include "cli/commands.h"

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

}  // namespace cqlite
