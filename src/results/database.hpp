// Private to results: the one seam between the SQL the store runs and the
// engine under it. SQL text is shared by both engines: parameters are $1, $2,
// ... (numbered in order of first use), types are TEXT, INTEGER, BIGINT and
// DOUBLE PRECISION, conflicts are ON CONFLICT DO NOTHING.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace trainbench::results::detail {

using Value = std::variant<std::monostate, std::int64_t, double, std::string>;
using Row = std::vector<std::optional<std::string>>;  // every column as text; NULL as nullopt

class Database {
public:
    virtual ~Database() = default;
    [[nodiscard]] virtual std::string describe() const = 0;
    // Runs one statement; returns its rows (text; doubles in shortest round-trip form).
    virtual std::vector<Row> exec(const std::string& sql, const std::vector<Value>& params = {}) = 0;
    // Starts a write transaction that excludes other writers until commit or rollback.
    virtual void begin_write() = 0;
    // Whether a table of this name exists (read only: takes no lock).
    [[nodiscard]] virtual bool has_table(const std::string& name) = 0;
    void commit() { (void)exec("COMMIT"); }
    void rollback() noexcept;
};

// Runs `fn` in one write transaction: committed when it returns, rolled back when it throws.
template <class Fn>
auto in_transaction(Database& db, Fn&& fn) {
    db.begin_write();
    try {
        if constexpr (std::is_void_v<decltype(fn())>) {
            fn();
            db.commit();
        } else {
            auto r = fn();
            db.commit();
            return r;
        }
    } catch (...) {
        db.rollback();
        throw;
    }
}

struct Location;
// A SQLite file; with `create` false a missing file is an error (RuntimeError) and a file this
// process may not write is opened read-only.
[[nodiscard]] std::unique_ptr<Database> open_sqlite(const std::string& path, bool create);
[[nodiscard]] std::unique_ptr<Database> open_postgresql(const Location& where);

// The start of a statement, for error messages (not a whole 39-column INSERT).
[[nodiscard]] std::string statement_head(const std::string& sql);

// Parsing what a database returns: a double, exactly (denormals included; both engines give
// shortest round-trip text), or an integer. Throw BadValue for anything else.
struct BadValue {
    std::string text;
};
[[nodiscard]] double parse_double(const std::string& text);
[[nodiscard]] std::int64_t parse_int(const std::string& text);

// Brings the schema to k_schema_version (docs/results.md), in one write transaction per step,
// the schema table's creation included (two first users at once take turns). A database that
// is current is only read (no lock, works read-only).
void migrate(Database& db);
[[nodiscard]] int schema_version(Database& db);

}  // namespace trainbench::results::detail
