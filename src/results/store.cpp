// The store: one SQL code path over either engine.
#include "results/columns.hpp"
#include "results/location.hpp"

#include <trainbench/results.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace trainbench::results {

namespace detail {
namespace {

// Every figure stored is a finite number: a NaN or an infinity is refused here, naming the
// figure, before any SQL runs (never a NOT NULL error, never a value no reader can use).
void check_finite(const Result& r) {
    for (const Column& c : result_columns()) {
        const Value v = c.get(r);
        if (const auto* d = std::get_if<double>(&v); d && !std::isfinite(*d))
            throw InputError(
                fmt::format("cannot record result {}: its {} is {}, not a finite number", r.short_id(), c.name, *d),
                "check the log's step times ('trainbench report' names a bad one); nothing was recorded");
    }
    for (const analysis::StepSample& s : r.window_steps)
        if (!std::isfinite(s.seconds))
            throw InputError(fmt::format("cannot record result {}: the step time of step {} is {}, not a finite number",
                                         r.short_id(), s.step, s.seconds),
                             "nothing was recorded");
}

class SqlStore final : public Store {
public:
    explicit SqlStore(std::unique_ptr<Database> db) : m_db(std::move(db)) { migrate(*m_db); }

    std::string describe() const override { return m_db->describe(); }
    int schema_version() override { return detail::schema_version(*m_db); }

    bool record(const Result& r) override {
        check_finite(r);
        std::vector<Value> values;
        for (const Column& c : result_columns()) values.push_back(c.get(r));
        return in_transaction(*m_db, [&] {
            if (!m_db->exec("SELECT 1 FROM results WHERE result_id = $1", {r.result_id}).empty()) return false;
            (void)m_db->exec(fmt::format("INSERT INTO results ({}) VALUES ({})", column_list(), placeholder_list()),
                             values);
            std::int64_t ordinal = 0;
            for (const analysis::StepSample& s : r.window_steps)
                (void)m_db->exec("INSERT INTO step_times (result_id, ordinal, step, seconds) VALUES ($1, $2, $3, $4)",
                                 {r.result_id, ordinal++, s.step, s.seconds});
            return true;
        });
    }

    std::vector<Result> history(const HistoryFilter& f) override {
        return select(
            "WHERE ($1 = '' OR recipe_name = $1) AND ($2 = '' OR target = $2) AND ($3 = '' OR model = $3) "
            "ORDER BY ran_at, recorded_at, result_id",
            {f.name, f.target, f.model});
    }

    Result find_run(const std::string& ref) override {
        // Run ids end in 6 hex digits: a short id prefix matches inside the id, after the last '-'.
        std::vector<Result> all = select("WHERE run_id = $1 OR run_id LIKE $2 OR run_id LIKE $3 ORDER BY recorded_at",
                                         {ref, ref + "%", "%-" + ref + "%"});
        std::vector<std::string> ids;
        for (const Result& r : all)
            if (r.run_id == ref) return latest_of(all, ref);
        for (const Result& r : all)
            if ((r.run_id.rfind(ref, 0) == 0 || r.short_id().rfind(ref, 0) == 0) &&
                std::find(ids.begin(), ids.end(), r.run_id) == ids.end())
                ids.push_back(r.run_id);
        if (ids.size() == 1) return latest_of(all, ids.front());
        if (ids.empty())
            throw UsageError(fmt::format("no result for run '{}' in {}", ref, describe()),
                             "'trainbench history' lists the recorded runs; 'trainbench report RUN' records one");
        for (std::string& id : ids) id = terminal_safe(id);  // (what another writer stored)
        throw UsageError(fmt::format("'{}' matches several recorded runs: {}", ref, quoted_list(ids, " and ")),
                         "give more of the run id");
    }

    void tag(const std::string& run_id, const std::string& tag) override {
        in_transaction(*m_db, [&] {
            (void)m_db->exec(
                "INSERT INTO tags (run_id, tag, tagged_at) VALUES ($1, $2, $3) ON CONFLICT (run_id, tag) DO NOTHING",
                {run_id, tag, utc_now()});
        });
    }

private:
    static Result latest_of(const std::vector<Result>& all, const std::string& run_id) {
        const Result* best = nullptr;
        for (const Result& r : all)
            if (r.run_id == run_id) best = &r;  // ordered by recorded_at
        return *best;
    }

    // A value that is not a number where one belongs (written behind trainbench's back): an
    // error that names the database, the result and the column.
    [[noreturn]] void bad_value(const std::string& result_id, const char* column, const BadValue& e) const {
        throw RuntimeError(
            fmt::format("the results database '{}' holds '{}' in column {} of result {}: not a number", describe(),
                        terminal_safe(e.text.substr(0, 40)), column, terminal_safe(result_id)),
            "correct or delete that row with the database's own client");
    }

    std::vector<Result> select(const std::string& where, const std::vector<Value>& params) {
        std::vector<Result> out;
        const auto& columns = result_columns();
        for (const Row& row : m_db->exec(fmt::format("SELECT {} FROM results {}", column_list(), where), params)) {
            Result r;
            for (std::size_t i = 0; i < columns.size() && i < row.size(); ++i) {
                try {
                    columns[i].set(r, row[i]);
                } catch (const BadValue& e) {
                    bad_value(row.front().value_or("?"), columns[i].name, e);
                }
            }
            out.push_back(std::move(r));
        }
        for (Result& r : out) {
            for (const Row& row : m_db->exec(
                     "SELECT step, seconds FROM step_times WHERE result_id = $1 ORDER BY ordinal", {r.result_id})) {
                try {
                    r.window_steps.push_back({parse_int(row.at(0).value_or("")), parse_double(row.at(1).value_or(""))});
                } catch (const BadValue& e) {
                    bad_value(r.result_id, "step_times", e);
                }
            }
            for (const Row& row : m_db->exec("SELECT tag FROM tags WHERE run_id = $1 ORDER BY tag", {r.run_id}))
                r.tags.push_back(row.at(0).value_or(""));
        }
        return out;
    }

    std::unique_ptr<Database> m_db;
};

}  // namespace
}  // namespace detail

std::unique_ptr<Store> open_store(const std::string& location, Access access) {
    const detail::Location where = detail::parse_location(location);
    if (where.engine == detail::Location::Engine::postgresql)
        return std::make_unique<detail::SqlStore>(detail::open_postgresql(where));
    return std::make_unique<detail::SqlStore>(detail::open_sqlite(where.target, access == Access::write));
}

std::string default_location(const std::string& flag, const std::filesystem::path& runs_root) {
    if (!flag.empty()) return flag;
    if (const char* env = std::getenv("TRAINBENCH_RESULTS"); env && *env) return env;
    return (runs_root / "results.sqlite").string();
}

std::string Result::short_id() const {
    return run_id.size() > 6 ? run_id.substr(run_id.size() - 6) : run_id;
}

}  // namespace trainbench::results
