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

[[nodiscard]] std::unique_ptr<Database> open_sqlite(const std::string& path);
[[nodiscard]] std::unique_ptr<Database> open_postgresql(const std::string& url);

// Brings the schema to k_schema_version (docs/results.md), in one transaction per step.
void migrate(Database& db);
[[nodiscard]] int schema_version(Database& db);

}  // namespace trainbench::results::detail
