#pragma once
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtbench {

// Reads a whole file; a gzip-compressed file is decompressed transparently (zlib passes
// uncompressed files through). Throws UserError naming the file when it cannot be read.
std::vector<uint8_t> read_maybe_gzipped(const std::string& path);

// read_maybe_gzipped as text.
std::string read_text_file(const std::string& path);

// The rest of an open file descriptor's bytes; nullopt where a read fails. A /proc/PID file
// whose process ends after it was opened fails so (ESRCH): the process is gone, not an error.
std::optional<std::string> read_rest(int fd);

// A file of /proc read whole; nullopt where it cannot be opened or read (its process ended).
std::optional<std::string> read_proc_file(const std::string& path);

// A JSON file, gzip-compressed or not; null where it is missing, unreadable or not JSON.
nlohmann::json read_json_or_null(const std::string& path);

// A file of a results directory as it is stored: dir/NAME.gz where it was compressed (committed
// results keep result.json.gz and trace.json.gz), else dir/NAME.
std::string stored_file(const std::string& dir, const std::string& name);

// Makes path's directory (and its parents) and checks that a file can be written there, so that a
// run fails at its start rather than when its result is ready: UserError "cannot write PATH: why".
void require_writable(const std::string& path);

// Writes text to path through a temporary file in the same directory and a rename, so a
// reader never sees a half-written file. Creates missing parent directories. A path ending in
// ".gz" is written gzip-compressed (traces: Perfetto and chrome://tracing open .json.gz).
void write_file_atomically(const std::string& path, const std::string& text);

// Lower-case hex SHA-256 of a file's bytes as stored on disk.
std::string sha256_of_file(const std::string& path);

}  // namespace dtbench
