// yaml: a located YAML reader over yaml-cpp, shared by the catalog, the recipe
// loader and the sweep file. A document is parsed into a small tree (yaml::Node) where
// every node knows its file:line:column (1-based). Trees from several files
// merge (maps deep, everything else replaced) and keep each value's origin.
// Typed reads (MapReader) report wrong types with "expected ...", and keys
// nobody asked for as unknown keys with "did you mean". Nothing throws: every
// problem goes to a Diagnostics so the user sees all of them at once.
#pragma once

#include <trainbench/core.hpp>

#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::yaml {

// Limits of one document (a recipe, sweep or catalog file), each a located error when passed:
// its size, and the values it expands to once YAML aliases are resolved. Nesting is limited
// to 64 levels. The shipped recipes are a few KiB and a few hundred values.
constexpr std::size_t k_max_document_bytes = 4u << 20;  // 4 MiB
constexpr std::size_t k_max_document_nodes = 100000;

enum class Kind { null, scalar, sequence, map };

struct Entry;

struct Node {
    Kind kind = Kind::null;
    std::string scalar;   // the text of a scalar
    bool quoted = false;  // a quoted scalar is always a string
    SourceLocation where;
    std::vector<Node> items;     // sequence
    std::vector<Entry> entries;  // map, in document order

    [[nodiscard]] bool is_null() const { return kind == Kind::null; }
    [[nodiscard]] bool is_scalar() const { return kind == Kind::scalar; }
    [[nodiscard]] bool is_sequence() const { return kind == Kind::sequence; }
    [[nodiscard]] bool is_map() const { return kind == Kind::map; }

    [[nodiscard]] const Entry* find_entry(std::string_view key) const;
    [[nodiscard]] Entry* find_entry(std::string_view key);
    [[nodiscard]] const Node* find(std::string_view key) const;
    [[nodiscard]] Node* find(std::string_view key);
    // Sets (replacing) or appends key -> value.
    Node& set(const std::string& key, Node value, SourceLocation key_where);
    bool erase(std::string_view key);

    // "a map", "a list", "null", "'abc'" (for "got ..." in messages).
    [[nodiscard]] std::string describe() const;

    [[nodiscard]] static Node make_scalar(std::string text, SourceLocation where, bool quoted = true);
    [[nodiscard]] static Node make_map(SourceLocation where);
};

struct Entry {
    std::string key;
    SourceLocation key_where;
    Node value;
};

// Parses one document. Syntax errors, tabs in indentation, duplicate keys and
// non-string keys become located diagnostics; the result is then a null node.
[[nodiscard]] Node parse(std::string_view text, const std::string& file, Diagnostics& diagnostics);
// Reads and parses a file; a missing/unreadable file is a diagnostic at `from`
// (or at the file itself when `from` is unknown).
[[nodiscard]] Node parse_file(const std::filesystem::path& path, const std::string& display_name,
                              Diagnostics& diagnostics, const SourceLocation& from = {});
// Parses a command-line value ("4", "[5,20]", "{a: 1}", "abc"); every node is
// located at `where` (an override). An empty text is the empty string.
[[nodiscard]] Node parse_value(std::string_view text, const SourceLocation& where, Diagnostics& diagnostics);

// Deep merge: a map in `over` merges into a map in `base` key by key (new keys
// appended, existing keys merged recursively); anything else replaces.
void merge(Node& base, const Node& over);

// YAML-ish typing of a node as JSON: plain integers, floats, true/false and
// null become typed values, quoted scalars stay strings.
[[nodiscard]] nlohmann::ordered_json to_json(const Node& node);

// Scalar conversions; on failure add an error at the node naming `key`.
[[nodiscard]] std::optional<std::int64_t> as_int(const Node& node, const std::string& key, Diagnostics& d);
[[nodiscard]] std::optional<double> as_double(const Node& node, const std::string& key, Diagnostics& d);
[[nodiscard]] std::optional<bool> as_bool(const Node& node, const std::string& key, Diagnostics& d);
[[nodiscard]] std::optional<std::string> as_string(const Node& node, const std::string& key, Diagnostics& d);

// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
[[nodiscard]] std::string join_key(std::string_view prefix, std::string_view key);

// Reads one map. Every get()/read() registers its key as known; finish()
// reports the keys of the map that nobody asked for as unknown, with a
// did-you-mean among the known ones. A null node reads as an empty map.
class MapReader {
public:
    MapReader(const Node& node, std::string path, Diagnostics& diagnostics);
    MapReader(const MapReader&) = delete;
    MapReader& operator=(const MapReader&) = delete;

    [[nodiscard]] bool valid() const { return m_valid; }
    [[nodiscard]] const Node& node() const { return m_node; }
    [[nodiscard]] const std::string& path() const { return m_path; }
    [[nodiscard]] std::string key_path(std::string_view key) const { return join_key(m_path, key); }
    [[nodiscard]] Diagnostics& diagnostics() { return m_diagnostics; }

    // The value of `key`, or nullptr when absent or null. Registers the key.
    const Node* get(std::string_view key);
    // Registers a key without reading it (handled elsewhere).
    void allow(std::string_view key);
    // A required key that is absent: an error at the map.
    const Node* require(std::string_view key, std::string_view expected);

    // Typed reads: `out` changes only when the key is present and valid.
    // Return true when the key was present and valid.
    bool read(std::string_view key, int& out, int min = INT_MIN, int max = INT_MAX);
    bool read(std::string_view key, double& out, double min = -1e300);
    bool read(std::string_view key, bool& out);
    bool read(std::string_view key, std::string& out);
    bool read(std::string_view key, std::optional<bool>& out);
    bool read(std::string_view key, std::vector<std::string>& out);
    bool read(std::string_view key, std::vector<int>& out, int min = INT_MIN);
    // A string that must be one of `allowed` (did-you-mean on a near miss).
    bool read_enum(std::string_view key, std::string& out, const std::vector<std::string>& allowed);

    // Reports unknown keys. Call once after all reads.
    void finish();

private:
    const Node& m_node;
    std::string m_path;
    Diagnostics& m_diagnostics;
    std::vector<std::string> m_known;
    bool m_valid = false;
};

// "did you mean 'x'?" by edit distance, else by a long shared prefix; "" when nothing is close.
[[nodiscard]] std::string suggest(std::string_view word, const std::vector<std::string>& candidates);

// An error at `node` for a value of the wrong kind ("expected X, got Y").
void type_error(Diagnostics& d, const Node& node, const std::string& key, std::string_view expected);

}  // namespace trainbench::yaml
