// The subcommands of `cqlite`, each registered on the CLI11 app with its
// options and run after parsing. Commands print results to stdout and
// one-line errors to stderr, and return the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace cqlite {

using CommandRunner = std::function<int()>;

CommandRunner AddLsCommand(CLI::App& app);
CommandRunner AddDumpCommand(CLI::App& app);
CommandRunner AddSelectCommand(CLI::App& app);
CommandRunner AddDeltaExportCommand(CLI::App& app);
CommandRunner AddMaterializeCommand(CLI::App& app);
CommandRunner AddWatchCommand(CLI::App& app);
CommandRunner AddRingCommand(CLI::App& app);

// The transform of every --now option: a time as seconds since the Unix
// epoch or in ISO-8601 (ParseInstantSeconds), handed on as seconds.
CLI::Validator InstantOption();
inline constexpr const char* kNowHelp =
    "When TTLs are evaluated: seconds since the Unix epoch or an ISO-8601 time such as 2027-01-01T08:30:00Z "
    "(default: now)";

}  // namespace cqlite
