// The SQLite engine: one file, WAL journal, full fsync on commit, a busy
// timeout so concurrent trainbench processes wait for each other's writes.
#include "results/database.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <sqlite3.h>

namespace fs = std::filesystem;

namespace trainbench::results::detail {

namespace {

constexpr int k_busy_timeout_ms = 30000;

class Statement {
public:
    Statement(sqlite3* db, const std::string& sql) : m_db(db) {
        if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &m_stmt, nullptr) != SQLITE_OK)
            throw RuntimeError(fmt::format("SQLite: {} in: {}", sqlite3_errmsg(db), sql));
    }
    ~Statement() { sqlite3_finalize(m_stmt); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    void bind(const std::vector<Value>& params) {
        for (std::size_t i = 0; i < params.size(); ++i) {
            const std::string name = fmt::format("${}", i + 1);
            const int index = sqlite3_bind_parameter_index(m_stmt, name.c_str());
            if (index == 0) continue;  // not used by this statement
            const Value& v = params[i];
            int rc = SQLITE_OK;
            if (std::holds_alternative<std::monostate>(v))
                rc = sqlite3_bind_null(m_stmt, index);
            else if (const auto* n = std::get_if<std::int64_t>(&v))
                rc = sqlite3_bind_int64(m_stmt, index, *n);
            else if (const auto* d = std::get_if<double>(&v))
                rc = sqlite3_bind_double(m_stmt, index, *d);
            else {
                const std::string& s = std::get<std::string>(v);
                rc = sqlite3_bind_text(m_stmt, index, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
            }
            if (rc != SQLITE_OK)
                throw RuntimeError(fmt::format("SQLite: cannot bind {}: {}", name, sqlite3_errmsg(m_db)));
        }
    }

    std::vector<Row> run(const std::string& sql) {
        std::vector<Row> rows;
        while (true) {
            const int rc = sqlite3_step(m_stmt);
            if (rc == SQLITE_DONE) break;
            if (rc != SQLITE_ROW) throw RuntimeError(fmt::format("SQLite: {} in: {}", sqlite3_errmsg(m_db), sql));
            rows.push_back(row());
        }
        return rows;
    }

private:
    Row row() {
        Row r;
        const int n = sqlite3_column_count(m_stmt);
        for (int i = 0; i < n; ++i) {
            switch (sqlite3_column_type(m_stmt, i)) {
                case SQLITE_NULL:
                    r.emplace_back(std::nullopt);
                    break;
                case SQLITE_FLOAT:
                    r.emplace_back(fmt::format("{}", sqlite3_column_double(m_stmt, i)));
                    break;
                default: {
                    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, i));
                    r.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, i))));
                }
            }
        }
        return r;
    }

    sqlite3* m_db;
    sqlite3_stmt* m_stmt = nullptr;
};

class SqliteDatabase final : public Database {
public:
    explicit SqliteDatabase(std::string path) : m_path(std::move(path)) {
        std::error_code ec;
        const fs::path parent = fs::path(m_path).parent_path();
        if (!parent.empty()) fs::create_directories(parent, ec);
        if (sqlite3_open_v2(m_path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                            nullptr) != SQLITE_OK) {
            std::string why = m_db ? sqlite3_errmsg(m_db) : "out of memory";
            sqlite3_close(m_db);
            throw RuntimeError(fmt::format("cannot open the results database '{}': {}", m_path, why),
                               "check the path, or give another with --results");
        }
        sqlite3_busy_timeout(m_db, k_busy_timeout_ms);
        (void)exec("PRAGMA journal_mode=WAL", {});
        (void)exec("PRAGMA synchronous=FULL", {});
        (void)exec("PRAGMA foreign_keys=ON", {});
    }
    ~SqliteDatabase() override { sqlite3_close(m_db); }
    SqliteDatabase(const SqliteDatabase&) = delete;
    SqliteDatabase& operator=(const SqliteDatabase&) = delete;

    std::string describe() const override { return "sqlite:" + m_path; }

    std::vector<Row> exec(const std::string& sql, const std::vector<Value>& params) override {
        Statement st(m_db, sql);
        st.bind(params);
        return st.run(sql);
    }

    void begin_write() override { (void)exec("BEGIN IMMEDIATE", {}); }

private:
    std::string m_path;
    sqlite3* m_db = nullptr;
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path) {
    return std::make_unique<SqliteDatabase>(path);
}

void Database::rollback() noexcept {
    try {
        (void)exec("ROLLBACK");
    } catch (...) {  // nothing to roll back: the transaction already ended
    }
}

}  // namespace trainbench::results::detail
