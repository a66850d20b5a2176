// The PostgreSQL engine, through libpq: parameters sent as text, results read
// as text. Writers serialise on a transaction-scoped advisory lock, so two
// trainbench processes that migrate or record at once take turns.
#include "results/database.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <libpq-fe.h>

namespace trainbench::results::detail {

namespace {

constexpr long k_writer_lock = 0x7472616962;  // "traib": one advisory lock key for every trainbench writer

// The URL without its password, for messages.
std::string redact(const std::string& url) {
    const std::size_t scheme = url.find("://");
    const std::size_t at = url.find('@');
    if (scheme == std::string::npos || at == std::string::npos) return url;
    const std::size_t colon = url.find(':', scheme + 3);
    if (colon == std::string::npos || colon > at) return url;
    return url.substr(0, colon) + ":***" + url.substr(at);
}

std::string text(const Value& v) {
    if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
    if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
    return std::get<std::string>(v);
}

class PgDatabase final : public Database {
public:
    explicit PgDatabase(const std::string& url) : m_where(redact(url)) {
        m_conn = PQconnectdb(url.c_str());
        if (PQstatus(m_conn) != CONNECTION_OK) {
            std::string why = PQerrorMessage(m_conn);
            while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
            PQfinish(m_conn);
            throw RuntimeError(fmt::format("cannot connect to the results database '{}': {}", m_where, why),
                               "check --results or $TRAINBENCH_RESULTS (postgresql://user@host:port/database)");
        }
        (void)exec("SET client_min_messages TO warning", {});
    }
    ~PgDatabase() override { PQfinish(m_conn); }
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
        PGresult* res = PQexecParams(m_conn, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(),
                                     nullptr, nullptr, 0);
        const ExecStatusType status = PQresultStatus(res);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
            std::string why = PQresultErrorMessage(res);
            PQclear(res);
            while (!why.empty() && why.back() == '\n') why.pop_back();
            throw RuntimeError(fmt::format("PostgreSQL ({}): {} in: {}", m_where, why, sql));
        }
        std::vector<Row> rows;
        for (int r = 0; r < PQntuples(res); ++r) {
            Row row;
            for (int c = 0; c < PQnfields(res); ++c)
                row.emplace_back(PQgetisnull(res, r, c) ? std::nullopt
                                                        : std::optional<std::string>(PQgetvalue(res, r, c)));
            rows.push_back(std::move(row));
        }
        PQclear(res);
        return rows;
    }

    void begin_write() override {
        (void)exec("BEGIN", {});
        (void)exec("SELECT pg_advisory_xact_lock($1)", {static_cast<std::int64_t>(k_writer_lock)});
    }

private:
    std::string m_where;
    PGconn* m_conn = nullptr;
};

}  // namespace

std::unique_ptr<Database> open_postgresql(const std::string& url) {
    return std::make_unique<PgDatabase>(url);
}

}  // namespace trainbench::results::detail
