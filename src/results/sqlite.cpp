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
    Statement(sqlite3* db, const std::string& sql, const std::string& where) : m_db(db), m_where(where) {
        if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &m_stmt, nullptr) != SQLITE_OK)
            throw RuntimeError(fmt::format("SQLite ({}): {} in: {}", m_where, sqlite3_errmsg(db), statement_head(sql)));
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
                throw RuntimeError(fmt::format("SQLite ({}): cannot bind {}: {}", m_where, name, sqlite3_errmsg(m_db)));
        }
    }

    std::vector<Row> run(const std::string& sql) {
        std::vector<Row> rows;
        while (true) {
            const int rc = sqlite3_step(m_stmt);
            if (rc == SQLITE_DONE) break;
            if (rc != SQLITE_ROW)
                throw RuntimeError(
                    fmt::format("SQLite ({}): {} in: {}", m_where, sqlite3_errmsg(m_db), statement_head(sql)));
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
                case SQLITE_FLOAT:  // shortest round-trip text: parse_double gives the same double back
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
    const std::string& m_where;
    sqlite3_stmt* m_stmt = nullptr;
};

class SqliteDatabase final : public Database {
public:
    SqliteDatabase(std::string path, bool create) : m_path(std::move(path)), m_where("sqlite:" + m_path) {
        try {
            connect(create);
        } catch (...) {
            // A constructor that throws runs no destructor: a file that is not a database opens
            // (SQLite reads lazily) and fails at the first statement, so close the handle here.
            sqlite3_close(m_db);
            m_db = nullptr;
            throw;
        }
    }
    ~SqliteDatabase() override { sqlite3_close(m_db); }
    SqliteDatabase(const SqliteDatabase&) = delete;
    SqliteDatabase& operator=(const SqliteDatabase&) = delete;

    std::string describe() const override { return m_where; }

    std::vector<Row> exec(const std::string& sql, const std::vector<Value>& params) override {
        Statement st(m_db, sql, m_where);
        st.bind(params);
        return st.run(sql);
    }

    void begin_write() override { (void)exec("BEGIN IMMEDIATE", {}); }

    bool has_table(const std::string& name) override {
        return !exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1", {name}).empty();
    }

private:
    void connect(bool create) {
        std::error_code ec;
        const fs::path parent = fs::path(m_path).parent_path();
        if (create && !parent.empty()) fs::create_directories(parent, ec);
        if (!create && !fs::exists(m_path, ec)) {
            // Nothing recorded yet: an empty database in memory answers, and no file is created.
            open(SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, ":memory:");
            return;
        }
        open(SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0));
        if (sqlite3_db_readonly(m_db, "main") == 1) {
            // Another user's database (or a read-only file system): readable, never written. A WAL
            // database at rest has no -shm file, which a reader that may not create one cannot
            // use: such a file is read as immutable (no locks; it must not change meanwhile).
            if (!readable()) {
                sqlite3_close(m_db);
                m_db = nullptr;
                open(SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, "?immutable=1");
            }
        } else {
            (void)exec("PRAGMA journal_mode=WAL", {});
            (void)exec("PRAGMA synchronous=FULL", {});
        }
        (void)exec("PRAGMA foreign_keys=ON", {});
    }

    // Opens m_path (or `special`: ":memory:", or a URI query such as "?immutable=1" after the path).
    void open(int flags, std::string_view special = {}) {
        std::string name = special == ":memory:" ? std::string(special) : m_path;
        if (!special.empty() && special != ":memory:") {  // file: URI of the path, percent-encoded
            name = "file:";
            for (char c : fs::absolute(m_path).string())
                name += (c == '%' || c == '?' || c == '#') ? fmt::format("%{:02X}", static_cast<unsigned char>(c))
                                                           : std::string(1, c);
            name += special;
        }
        if (sqlite3_open_v2(name.c_str(), &m_db, flags | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
            std::string why = m_db ? sqlite3_errmsg(m_db) : "out of memory";
            sqlite3_close(m_db);
            m_db = nullptr;
            throw RuntimeError(fmt::format("cannot open the results database '{}': {}", m_path, why),
                               "check the path, or give another with --results");
        }
        sqlite3_busy_timeout(m_db, k_busy_timeout_ms);
    }

    bool readable() {
        try {
            (void)exec("SELECT count(*) FROM sqlite_master", {});
            return true;
        } catch (const RuntimeError&) {
            return false;
        }
    }

    std::string m_path;
    std::string m_where;
    sqlite3* m_db = nullptr;
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path, bool create) {
    return std::make_unique<SqliteDatabase>(path, create);
}

void Database::rollback() noexcept {
    try {
        (void)exec("ROLLBACK");
    } catch (...) {  // nothing to roll back: the transaction already ended
    }
}

}  // namespace trainbench::results::detail
