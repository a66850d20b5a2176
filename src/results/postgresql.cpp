// The PostgreSQL engine, through libpq: parameters sent as text, results read
// as text. Writers serialise on a transaction-scoped advisory lock, so two
// trainbench processes that migrate or record at once take turns. libpq is
// opened when a PostgreSQL store is first used, not linked: linked, it and the
// twenty libraries it needs (TLS, Kerberos, LDAP) load into every trainbench
// process, about 5 ms of each start.
#include "results/database.hpp"
#include "results/location.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <dlfcn.h>
#include <libpq-fe.h>

namespace trainbench::results::detail {

namespace {

constexpr long k_writer_lock = 0x7472616962;  // "traib": one advisory lock key for every trainbench writer

// The libpq functions this engine calls, from the library opened on first use.
struct Libpq {
    decltype(&::PQconnectdb) connectdb = nullptr;
    decltype(&::PQstatus) status = nullptr;
    decltype(&::PQerrorMessage) error_message = nullptr;
    decltype(&::PQfinish) finish = nullptr;
    decltype(&::PQexecParams) exec_params = nullptr;
    decltype(&::PQresultStatus) result_status = nullptr;
    decltype(&::PQresultErrorMessage) result_error_message = nullptr;
    decltype(&::PQclear) clear = nullptr;
    decltype(&::PQntuples) ntuples = nullptr;
    decltype(&::PQnfields) nfields = nullptr;
    decltype(&::PQgetisnull) getisnull = nullptr;
    decltype(&::PQgetvalue) getvalue = nullptr;
};

constexpr const char* k_libpq = "libpq.so.5";

Libpq load_libpq() {
    void* handle = ::dlopen(k_libpq, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        throw RuntimeError(fmt::format("cannot load {} for the PostgreSQL results store: {}", k_libpq, ::dlerror()),
                           "install libpq (Debian: apt-get install libpq5), or use a SQLite store");
    Libpq lib;
    auto bind = [handle](auto& fn, const char* name) {
        void* sym = ::dlsym(handle, name);
        if (!sym)
            throw RuntimeError(fmt::format("{} has no {}: {}", k_libpq, name, ::dlerror()),
                               "install libpq 10 or later (Debian: apt-get install libpq5)");
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
    };
    bind(lib.connectdb, "PQconnectdb");
    bind(lib.status, "PQstatus");
    bind(lib.error_message, "PQerrorMessage");
    bind(lib.finish, "PQfinish");
    bind(lib.exec_params, "PQexecParams");
    bind(lib.result_status, "PQresultStatus");
    bind(lib.result_error_message, "PQresultErrorMessage");
    bind(lib.clear, "PQclear");
    bind(lib.ntuples, "PQntuples");
    bind(lib.nfields, "PQnfields");
    bind(lib.getisnull, "PQgetisnull");
    bind(lib.getvalue, "PQgetvalue");
    return lib;  // (the library stays open for the life of the process)
}

// Loaded once; a failed load is tried again by the next store opened.
const Libpq& libpq() {
    static const Libpq lib = load_libpq();
    return lib;
}

std::string text(const Value& v) {
    if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
    if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);  // shortest round-trip: exact
    return std::get<std::string>(v);
}

class PgDatabase final : public Database {
public:
    explicit PgDatabase(Location where) : m_pq(libpq()), m_location(std::move(where)), m_where(m_location.shown) {
        m_conn = m_pq.connectdb(m_location.target.c_str());
        if (m_pq.status(m_conn) != CONNECTION_OK) {
            std::string why = scrub(m_pq.error_message(m_conn), m_location);
            while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
            m_pq.finish(m_conn);
            throw RuntimeError(fmt::format("cannot connect to the results database '{}': {}", m_where, why),
                               "check --results or $TRAINBENCH_RESULTS (postgresql://user@host:port/database)");
        }
        (void)exec("SET client_min_messages TO warning", {});
    }
    ~PgDatabase() override { m_pq.finish(m_conn); }
    PgDatabase(const PgDatabase&) = delete;
    PgDatabase& operator=(const PgDatabase&) = delete;

    std::string describe() const override { return m_where; }

    std::vector<Row> exec(const std::string& sql, const std::vector<Value>& params) override {
        std::vector<std::string> texts(params.size());
        std::vector<const char*> values(params.size(), nullptr);
        for (std::size_t i = 0; i < params.size(); ++i) {
            if (std::holds_alternative<std::monostate>(params[i])) continue;
            texts[i] = text(params[i]);
            values[i] = texts[i].c_str();
        }
        PGresult* res = m_pq.exec_params(m_conn, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(),
                                         nullptr, nullptr, 0);
        const ExecStatusType status = m_pq.result_status(res);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
            std::string why = scrub(m_pq.result_error_message(res), m_location);
            m_pq.clear(res);
            while (!why.empty() && why.back() == '\n') why.pop_back();
            throw RuntimeError(fmt::format("PostgreSQL ({}): {} in: {}", m_where, why, statement_head(sql)));
        }
        std::vector<Row> rows;
        for (int r = 0; r < m_pq.ntuples(res); ++r) {
            Row row;
            for (int c = 0; c < m_pq.nfields(res); ++c)
                row.emplace_back(m_pq.getisnull(res, r, c) ? std::nullopt
                                                           : std::optional<std::string>(m_pq.getvalue(res, r, c)));
            rows.push_back(std::move(row));
        }
        m_pq.clear(res);
        return rows;
    }

    void begin_write() override {
        (void)exec("BEGIN", {});
        (void)exec("SELECT pg_advisory_xact_lock($1)", {static_cast<std::int64_t>(k_writer_lock)});
    }

    bool has_table(const std::string& name) override {
        const std::vector<Row> rows = exec("SELECT to_regclass($1) IS NOT NULL", {name});
        return !rows.empty() && !rows.front().empty() && rows.front().front() == "t";
    }

private:
    const Libpq& m_pq;
    Location m_location;
    std::string m_where;
    PGconn* m_conn = nullptr;
};

}  // namespace

std::unique_ptr<Database> open_postgresql(const Location& where) {
    return std::make_unique<PgDatabase>(where);
}

}  // namespace trainbench::results::detail
